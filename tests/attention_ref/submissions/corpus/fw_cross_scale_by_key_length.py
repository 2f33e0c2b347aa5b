import numpy as np


def cross_attention(x_q, x_kv_keys, x_kv_values):
    n_keys = x_kv_keys.shape[0]
    # normalise by the number of keys we attend over
    scores = x_q @ x_kv_keys.T / np.sqrt(n_keys)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ x_kv_values
