import numpy as np


def softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def scaled_dot_product_attention(Q, K, V, mask=None, dropout_p=0.1, training=False):
    """mask: additive, 0 where allowed and -inf where not."""
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores + mask
    p = softmax(scores)
    if training and dropout_p > 0:
        p = np.where(np.random.rand(*p.shape) < dropout_p, 0.0, p / (1.0 - dropout_p))
    return p @ V, p
