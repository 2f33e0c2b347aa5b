import numpy as np

np.random.seed(42)

print("Self-attention from scratch")


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attn(Q, K, V):
    print("Q", Q.shape, "K", K.shape, "V", V.shape)
    scores = Q @ K.T / np.sqrt(K.shape[-1])
    weights = softmax(scores)
    print("weights row sums:", weights.sum(axis=-1)[:3])
    return weights @ V


# a tiny worked example, run at import
x = np.random.randn(3, 4)
out = attn(x, x, x)
print(out)

if __name__ == "__main__":
    big = np.random.randn(128, 64)
    result = attn(big, big, big)
    assert result.shape == (128, 64)
    print("ok")
