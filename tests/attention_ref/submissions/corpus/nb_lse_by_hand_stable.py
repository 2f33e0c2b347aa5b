import numpy as np


def logsumexp(a, axis=-1):
    m = np.max(a, axis=axis, keepdims=True)
    return m + np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True))


def attention(Q, K, V):
    s = Q @ K.T * (1.0 / np.sqrt(Q.shape[-1]))
    p = np.exp(s - logsumexp(s))
    return p @ V
