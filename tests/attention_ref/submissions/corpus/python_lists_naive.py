import math


def softmax(row):
    exps = [math.exp(x) for x in row]
    s = sum(exps)
    return [e / s for e in exps]


def attention(Q, K, V):
    d = len(Q[0])
    out = []
    for q in Q:
        scores = [sum(a * b for a, b in zip(q, k)) / math.sqrt(d) for k in K]
        w = softmax(scores)
        out.append([sum(w[j] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))])
    return out
