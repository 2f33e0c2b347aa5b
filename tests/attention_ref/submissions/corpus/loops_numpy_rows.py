import numpy as np


def stable_softmax(x):
    z = x - np.max(x)
    e = np.exp(z)
    return e / np.sum(e)


def attention(Q, K, V):
    d_k = K.shape[1]
    out = np.zeros((Q.shape[0], V.shape[1]))
    for i in range(Q.shape[0]):
        scores = np.array([np.dot(Q[i], K[j]) for j in range(K.shape[0])]) / np.sqrt(d_k)
        out[i] = stable_softmax(scores) @ V
    return out
