import math


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def softmax(row):
    top = max(row)
    exps = [math.exp(x - top) for x in row]
    total = sum(exps)
    return [e / total for e in exps]


def matmul(A, B):
    cols = list(zip(*B))
    return [[dot(r, c) for c in cols] for r in A]


def transpose(M):
    return [list(col) for col in zip(*M)]


def attention(Q, K, V):
    d_k = len(K[0])
    scores = matmul(Q, transpose(K))
    scaled = [[s / math.sqrt(d_k) for s in row] for row in scores]
    weights = [softmax(row) for row in scaled]
    return matmul(weights, V)


if __name__ == "__main__":
    Q = [[1.0, 0.0], [0.0, 1.0]]
    K = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    V = [[1.0], [2.0], [3.0]]
    print(attention(Q, K, V))
