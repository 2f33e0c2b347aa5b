"""A correct attention with the optional mask (additive convention), and helpers it imports."""

import fractions
import statistics

import numpy as np


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / Q.shape[-1] ** 0.5  # a Python float keeps float32 inputs float32
    if mask is not None:
        scores = scores + mask
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ V


def stdlib_still_imports(Q, K, V):
    # Modules that are not loaded before the sandbox closes must still import inside it.
    import decimal
    import json

    third = float(decimal.Decimal(1) / decimal.Decimal(3))
    parsed = json.loads("[1.5]")[0]
    return np.array([statistics.mean([1, 2, 3]), float(fractions.Fraction(1, 4)), third, parsed])
