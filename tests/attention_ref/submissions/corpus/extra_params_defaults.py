import numpy as np


def attention(q, k, v, bias=None, temperature=1.0, return_weights=False):
    """softmax(q k^T / (sqrt(d) * temperature) + bias) v

    bias: optional additive term broadcastable to (n_q, n_k), e.g. ALiBi.
    """
    logits = np.matmul(q, k.T) / (np.sqrt(q.shape[-1]) * temperature)
    if bias is not None:
        logits = logits + bias
    logits = logits - logits.max(axis=-1, keepdims=True)
    w = np.exp(logits)
    w = w / w.sum(axis=-1, keepdims=True)
    out = np.matmul(w, v)
    if return_weights:
        return out, w
    return out
