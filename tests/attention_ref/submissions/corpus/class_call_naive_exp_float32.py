import numpy as np


class Attention:
    """Single-head attention computed in float32 to save memory."""

    def __init__(self):
        self.dtype = np.float32

    def __call__(self, Q, K, V):
        Q = Q.astype(self.dtype)
        K = K.astype(self.dtype)
        V = V.astype(self.dtype)
        scale = self.dtype(1.0 / np.sqrt(Q.shape[-1]))
        scores = (Q @ K.T) * scale
        weights = np.exp(scores)
        weights = weights / weights.sum(axis=-1, keepdims=True)
        return weights @ V
