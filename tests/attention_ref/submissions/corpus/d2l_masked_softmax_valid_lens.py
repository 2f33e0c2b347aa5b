"""Scaled dot-product attention, following the chapter on attention scoring functions.

Shapes: queries (batch, n_queries, d), keys (batch, n_kv, d), values (batch, n_kv, v).
"""

import math

import numpy as np


def sequence_mask(X, valid_len, value=0.0):
    """Replace the entries of X past each row's valid length with `value`."""
    maxlen = X.shape[1]
    keep = np.arange(maxlen, dtype=np.float32)[None, :] < valid_len[:, None]
    X = X.copy()
    X[~keep] = value
    return X


def masked_softmax(X, valid_lens):
    """Softmax over the last axis that ignores keys past each valid length."""
    if valid_lens is None:
        e = np.exp(X - X.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    shape = X.shape
    if valid_lens.ndim == 1:
        valid_lens = np.repeat(valid_lens, shape[1])
    else:
        valid_lens = valid_lens.reshape(-1)
    X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
    return masked_softmax(X.reshape(shape), None)


class DotProductAttention:
    """Scaled dot product attention."""

    def __init__(self, dropout=0.0):
        self.dropout = dropout
        self.attention_weights = None

    def forward(self, queries, keys, values, valid_lens=None):
        d = queries.shape[-1]
        scores = np.matmul(queries, keys.transpose(0, 2, 1)) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return np.matmul(self.attention_weights, values)


if __name__ == "__main__":
    queries = np.random.normal(0, 1, (2, 1, 2))
    keys = np.ones((2, 10, 2))
    values = np.tile(np.arange(40, dtype=np.float32).reshape(1, 10, 4), (2, 1, 1))
    valid_lens = np.array([2, 6])
    attention = DotProductAttention(dropout=0.5)
    print(attention.forward(queries, keys, values, valid_lens))
