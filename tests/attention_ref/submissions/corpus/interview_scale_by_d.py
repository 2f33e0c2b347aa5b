import numpy as np


def softmax(x):
    x = x - x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def attention(Q, K, V):
    # Q: (n, d)  K: (m, d)  V: (m, dv)
    d = Q.shape[-1]
    scores = Q @ K.T / d  # normalise by the dimension so the scores stay small
    return softmax(scores) @ V


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(4, 8)), rng.normal(size=(6, 8)), rng.normal(size=(6, 3))
    print(attention(Q, K, V))
