import math

import numpy as np


def attention(Q, K, V):
    n_q, d = len(Q), len(Q[0])
    n_k, d_v = len(K), len(V[0])
    out = []
    for i in range(n_q):
        scores = []
        for j in range(n_k):
            dot = sum(Q[i][t] * K[j][t] for t in range(d))
            scores.append(dot / math.sqrt(d))
        top = max(scores)
        ex = [math.exp(s - top) for s in scores]
        total = sum(ex)
        row = [sum(ex[j] / total * V[j][c] for j in range(n_k)) for c in range(d_v)]
        out.append(row)
    return np.array(out)
