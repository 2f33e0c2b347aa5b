import numpy as np


def scaled_dot_product_attention(q, k, v, mask):
    """Calculate the attention weights.

    mask: 1 where a position must not be attended, 0 elsewhere (as in the TF tutorial).
    Returns output, attention_weights
    """
    matmul_qk = np.matmul(q, np.swapaxes(k, -1, -2))
    dk = k.shape[-1]
    scaled_attention_logits = matmul_qk / np.sqrt(dk)
    if mask is not None:
        scaled_attention_logits += mask * -1e9
    logits = scaled_attention_logits - scaled_attention_logits.max(axis=-1, keepdims=True)
    attention_weights = np.exp(logits) / np.exp(logits).sum(axis=-1, keepdims=True)
    output = np.matmul(attention_weights, v)
    return output, attention_weights
