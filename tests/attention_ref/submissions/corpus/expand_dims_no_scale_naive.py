import numpy as np


def soft_max(z):
    t = np.exp(z)
    return t / np.expand_dims(np.sum(t, axis=1), 1)


def attention(query, key, value):
    score = query @ key.T
    score = soft_max(score)
    return score @ value


if __name__ == "__main__":
    q = np.array([[1, 0, 2], [2, 2, 2], [2, 1, 3]], dtype=float)
    print(attention(q, q, q))
