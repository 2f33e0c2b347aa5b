"""Rows built in a list, but the last row drops a value (an off-by-one in a slice)."""

import numpy as np


def attention(Q, K, V):
    out = []
    for i, q in enumerate(Q):
        s = K @ q / np.sqrt(Q.shape[1])
        w = np.exp(s - s.max())
        row = (w / w.sum()) @ V
        out.append(row if i < len(Q) - 1 else row[:-1])
    return out
