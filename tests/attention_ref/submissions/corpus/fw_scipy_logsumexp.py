import numpy as np
from scipy.special import logsumexp


def sdpa(query: np.ndarray, key: np.ndarray, value: np.ndarray) -> np.ndarray:
    scores = np.dot(query, key.T) / np.sqrt(query.shape[1])
    log_weights = scores - logsumexp(scores, axis=1, keepdims=True)
    return np.dot(np.exp(log_weights), value)
