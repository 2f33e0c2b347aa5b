import numpy as np


def softmax(x):
    x = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=-1, keepdims=True)


def attention(Q, K, V, mask=None):
    # mask: boolean, True = allowed
    d = Q.shape[-1]
    scores = np.dot(Q, K.T) / np.sqrt(d)
    if mask is not None:
        scores = np.where(mask, scores, 0.0)  # "remove" the blocked scores
    p = softmax(scores)
    return np.dot(p, V)


if __name__ == "__main__":
    T = 5
    causal = np.tril(np.ones((T, T), dtype=bool))
    x = np.random.randn(T, 4)
    print(attention(x, x, x, causal))
