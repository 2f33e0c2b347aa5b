import math


def transpose(m):
    return [list(col) for col in zip(*m)]


def matmul(a, b):
    bt = transpose(b)
    return [[sum(x * y for x, y in zip(row, col)) for col in bt] for row in a]


def softmax_row(row):
    top = max(row)
    exps = [math.exp(x - top) for x in row]
    total = sum(exps)
    return [e / total for e in exps]


def attention(Q, K, V):
    d_k = len(K[0])
    scores = matmul(Q, transpose(K))
    scaled = [[s / math.sqrt(d_k) for s in row] for row in scores]
    weights = [softmax_row(row) for row in scaled]
    return matmul(weights, V)
