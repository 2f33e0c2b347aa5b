"""A softmax over a 1-D list that returns a plain list of floats."""

import math


def softmax(x):
    top = max(x)
    e = [math.exp(v - top) for v in x]
    s = sum(e)
    return [v / s for v in e]
