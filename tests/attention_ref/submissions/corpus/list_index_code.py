import math


def softmax(xs):
    m = max(xs)
    out = [math.exp(x - m) for x in xs]
    total = sum(out)
    return [o / total for o in out]


def attention(Q, K, V):
    d = len(K[0])
    weights = [softmax([sum(a * b for a, b in zip(q, k)) / math.sqrt(d) for k in K]) for q in Q]
    cols = list(zip(*V))
    return [[sum(w * x for w, x in zip(row, col)) for col in cols] for row in weights]
