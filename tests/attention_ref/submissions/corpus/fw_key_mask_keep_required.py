import numpy as np

MASK_VALUE = -1e10


def attention(q, k, v, key_mask):
    """q: (T_q, d); k, v: (T_k, d); key_mask: (T_k,) bool, True = a real token."""
    scale = 1 / np.sqrt(q.shape[-1])
    sim = (q * scale) @ k.T
    sim = np.where(key_mask[None, :], sim, MASK_VALUE)
    sim = sim - sim.max(axis=-1, keepdims=True)
    attn = np.exp(sim)
    attn = attn / attn.sum(axis=-1, keepdims=True)
    return attn @ v
