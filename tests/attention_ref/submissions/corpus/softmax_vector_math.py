import math


def softmax(values):
    biggest = max(values)
    exps = [math.exp(v - biggest) for v in values]
    total = sum(exps)
    return [e / total for e in exps]
