import numpy as np


def sdpa(q, k, v):
    # (B, T, D) inputs
    logits = np.einsum("btd,bsd->bts", q, k) / np.sqrt(q.shape[-1])
    logits = logits - logits.max(axis=-1, keepdims=True)
    probs = np.exp(logits)
    probs /= probs.sum(axis=-1, keepdims=True)
    return np.einsum("bts,bsd->btd", probs, v)
