import numpy as np


def tiled_attention(Q, K, V, block=64):
    """Online softmax over key blocks (FlashAttention-style)."""
    n, d = Q.shape
    row_max = np.full(n, -np.inf)
    row_sum = np.zeros(n)
    out = np.zeros((n, V.shape[1]))
    for j in range(0, K.shape[0], block):
        s = Q @ K[j:j + block].T / np.sqrt(d)
        new_max = np.maximum(row_max, s.max(axis=1))
        p = np.exp(s - new_max[:, None])
        row_sum = row_sum * np.exp(row_max - new_max) + p.sum(axis=1)
        out += p @ V[j:j + block]
        row_max = new_max
    return out / row_sum[:, None]
