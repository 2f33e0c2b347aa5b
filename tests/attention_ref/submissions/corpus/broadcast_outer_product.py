import numpy as np


def attention(Q, K, V):
    # pairwise products of every query with every key, summed over the feature axis
    scores = (Q[:, None, :] * K[None, :, :]).sum(axis=-1) / np.sqrt(Q.shape[-1])
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=-1, keepdims=True)
    return (w[:, :, None] * V[None, :, :]).sum(axis=1)
