import numpy as np


def _blocks(K, V, size):
    for start in range(0, K.shape[0], size):
        yield K[start:start + size], V[start:start + size]


def tiled_attention(Q, K, V, block=64):
    scale = Q.shape[1] ** -0.5
    m = np.full((Q.shape[0], 1), -np.inf)
    l = np.zeros((Q.shape[0], 1))
    acc = np.zeros((Q.shape[0], V.shape[1]))
    for k_blk, v_blk in _blocks(K, V, block):
        s = (Q @ k_blk.T) * scale  # (T_q, block)
        m_new = np.maximum(m, s.max(axis=1, keepdims=True))
        correction = np.exp(m - m_new)
        p = np.exp(s - m_new)
        l = l * correction + p.sum(axis=1, keepdims=True)
        acc = acc * correction + p @ v_blk
        m = m_new
    return acc / l
