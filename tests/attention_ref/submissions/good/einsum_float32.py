import numpy as np


def scaled_dot_product_attention(q, k, v):
    q, k, v = (np.asarray(x, dtype=np.float32) for x in (q, k, v))
    s = np.einsum("id,jd->ij", q, k) / np.float32(np.sqrt(q.shape[1]))
    s -= s.max(axis=1, keepdims=True)
    w = np.exp(s)
    w /= w.sum(axis=1, keepdims=True)
    return np.einsum("ij,jv->iv", w, v)
