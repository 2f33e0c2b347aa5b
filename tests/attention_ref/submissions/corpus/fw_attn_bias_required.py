import numpy as np


def attention(q, k, v, bias):
    """T5/ALiBi style: a float bias (relative positions, masks) is always added to the logits."""
    logits = np.einsum("qd,kd->qk", q, k) / np.sqrt(q.shape[-1]) + bias
    logits -= logits.max(axis=-1, keepdims=True)
    w = np.exp(logits)
    w /= w.sum(axis=-1, keepdims=True)
    return np.einsum("qk,kd->qd", w, v)
