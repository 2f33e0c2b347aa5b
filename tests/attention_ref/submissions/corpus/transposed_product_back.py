import numpy as np


def attention(Q, K, V):
    # column-vector habit from the lecture notes: every token is a column
    Qc, Kc, Vc = Q.T, K.T, V.T          # (d, n)
    S = (Kc.T @ Qc) / np.sqrt(Qc.shape[0])   # (n_k, n_q): column j = query j
    S = S - S.max(axis=0)                 # per query column
    A = np.exp(S)
    A = A / A.sum(axis=0)                 # each column sums to 1
    return (Vc @ A).T                     # back to one row per query
