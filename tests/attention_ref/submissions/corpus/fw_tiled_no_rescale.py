import numpy as np


def tiled_attention(Q, K, V, block=64):
    T_q, d = Q.shape
    run_max = np.full((T_q, 1), -np.inf)
    denom = np.zeros((T_q, 1))
    numer = np.zeros((T_q, V.shape[1]))
    for j in range(0, K.shape[0], block):
        s = Q @ K[j:j + block].T / np.sqrt(d)
        run_max = np.maximum(run_max, s.max(axis=1, keepdims=True))
        p = np.exp(s - run_max)
        denom += p.sum(axis=1, keepdims=True)
        numer += p @ V[j:j + block]
    return numer / denom
