import numpy as np


class ScaledDotProductAttention:
    def __init__(self, dropout):
        self.dropout = dropout  # kept for the PyTorch version; unused here

    def forward(self, q, k, v, mask=None):
        s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
        if mask is not None:
            s = np.where(mask, s, -1e9)
        s = s - s.max(axis=-1, keepdims=True)
        p = np.exp(s)
        return p / p.sum(axis=-1, keepdims=True) @ v


sdpa = ScaledDotProductAttention(dropout=0.0)
