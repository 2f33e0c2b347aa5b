import math


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def softmax(scores):
    m = max(scores)
    exps = [math.exp(s - m) for s in scores]
    total = sum(exps)
    return [e / total for e in exps]


def attention(Q, K, V):
    d_k = len(K[0])
    result = []
    for q in Q:
        weights = softmax([dot(q, k) / math.sqrt(d_k) for k in K])
        row = [0.0] * len(V[0])
        for w, v in zip(weights, V):
            for c in range(len(row)):
                row[c] += w * v[c]
        result.append(row)
    return result
