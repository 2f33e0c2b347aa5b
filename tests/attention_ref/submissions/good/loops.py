import math


def single_head_attention(Q, K, V):
    out = []
    for q in Q:
        scores = [sum(a * b for a, b in zip(q, k)) / math.sqrt(len(q)) for k in K]
        top = max(scores)
        weights = [math.exp(s - top) for s in scores]
        total = sum(weights)
        row = [0.0] * len(V[0])
        for w, v in zip(weights, V):
            for c, x in enumerate(v):
                row[c] += w / total * x
        out.append(row)
    return out
