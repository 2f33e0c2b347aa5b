import numpy as np


def attention(Q, K, V):
    """Lazily produce one output row per query."""
    scale = 1.0 / np.sqrt(Q.shape[-1])
    return ((lambda e: (e / e.sum()) @ V)(np.exp((K @ q) * scale - np.max((K @ q) * scale))) for q in Q)
