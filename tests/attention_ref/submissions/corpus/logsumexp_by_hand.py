import numpy as np


def logsumexp(a, axis=-1):
    m = np.max(a, axis=axis, keepdims=True)
    return m + np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True))


def attention(Q, K, V):
    # work in log space: log p = s - logsumexp(s)
    s = np.dot(Q, K.T) / np.sqrt(Q.shape[1])
    log_p = s - logsumexp(s, axis=1)
    return np.dot(np.exp(log_p), V)
