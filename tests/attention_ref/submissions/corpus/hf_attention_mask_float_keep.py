import numpy as np


def attention(query, key, value, mask=None):
    """Attention as in BERT-style encoders.

    mask: float array, 1.0 where the query may attend to the key, 0.0 where it may not
    (the usual `attention_mask` of a tokenizer, broadcast to (T_q, T_k)).
    """
    scores = np.matmul(query, key.T) / np.sqrt(query.shape[-1])
    if mask is not None:
        scores = scores + (1.0 - mask) * -10000.0
    scores = scores - scores.max(axis=-1, keepdims=True)
    probs = np.exp(scores)
    probs = probs / probs.sum(axis=-1, keepdims=True)
    return np.matmul(probs, value)
