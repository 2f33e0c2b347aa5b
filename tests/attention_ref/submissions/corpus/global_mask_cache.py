import numpy as np

_MASKS = {}
CALLS = 0


def _future_mask(n_q, n_k):
    key = (n_q, n_k)
    if key not in _MASKS:
        _MASKS[key] = np.triu(np.ones((n_q, n_k), dtype=bool), k=1)
    return _MASKS[key]


def attend(Q, K, V, causal=False):
    global CALLS
    CALLS += 1
    scores = Q @ K.T
    scores /= np.sqrt(Q.shape[-1])
    if causal:
        scores[_future_mask(*scores.shape)] = -np.inf
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    return scores @ V
