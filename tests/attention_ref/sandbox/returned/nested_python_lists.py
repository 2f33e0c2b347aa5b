"""Plain Python, no NumPy in the result: a list of lists of floats."""

import math


def attention(Q, K, V):
    d = len(Q[0])
    out = []
    for q in Q:
        scores = [sum(a * b for a, b in zip(q, k, strict=True)) / math.sqrt(d) for k in K]
        top = max(scores)
        e = [math.exp(s - top) for s in scores]
        total = sum(e)
        w = [x / total for x in e]
        out.append([sum(w[j] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))])
    return out
