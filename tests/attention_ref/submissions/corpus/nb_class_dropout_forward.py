import numpy as np


class ScaledDotProductAttention:
    """Attention block from the homework skeleton (no learnable weights)."""

    def __init__(self, dropout=0.0, seed=None):
        self.dropout = dropout
        self.rng = np.random.default_rng(seed)
        self.attn = None

    def softmax(self, x):
        x = x - np.max(x, axis=-1, keepdims=True)
        ex = np.exp(x)
        return ex / np.sum(ex, axis=-1, keepdims=True)

    def forward(self, q, k, v, mask=None):
        scores = q @ np.swapaxes(k, -2, -1) / np.sqrt(k.shape[-1])
        if mask is not None:
            scores = np.where(mask == 0, -1e9, scores)
        attn = self.softmax(scores)
        if self.dropout > 0:
            attn = attn * (self.rng.random(attn.shape) > self.dropout) / (1 - self.dropout)
        self.attn = attn
        return attn @ v
