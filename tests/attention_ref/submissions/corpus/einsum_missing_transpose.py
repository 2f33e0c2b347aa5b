import numpy as np


def attention(Q, K, V):
    # scores_ij = sum_d Q_id K_dj
    scores = np.einsum("id,dj->ij", Q, K) / np.sqrt(Q.shape[-1])
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    return np.einsum("ij,jd->id", w, V)
