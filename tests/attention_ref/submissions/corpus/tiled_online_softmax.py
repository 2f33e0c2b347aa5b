import numpy as np


def tiled_attention(Q, K, V, block=64):
    """Exact attention, one block of keys at a time (online softmax)."""
    T_q, d = Q.shape
    scale = 1.0 / np.sqrt(d)
    m = np.full((T_q, 1), -np.inf)          # running row max
    l = np.zeros((T_q, 1))                  # running denominator
    acc = np.zeros((T_q, V.shape[1]))       # running numerator
    for start in range(0, K.shape[0], block):
        k_blk = K[start:start + block]
        v_blk = V[start:start + block]
        s = (Q @ k_blk.T) * scale
        m_new = np.maximum(m, s.max(axis=1, keepdims=True))
        correction = np.exp(m - m_new)
        p = np.exp(s - m_new)
        l = l * correction + p.sum(axis=1, keepdims=True)
        acc = acc * correction + p @ v_blk
        m = m_new
    return acc / l
