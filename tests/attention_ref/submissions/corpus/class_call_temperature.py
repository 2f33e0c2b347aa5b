import numpy as np


class ScaledDotProductAttention:
    """Scaled dot-product attention with an optional fixed temperature."""

    def __init__(self, temperature=None, attn_dropout=0.0):
        self.temperature = temperature
        self.attn_dropout = attn_dropout

    def __call__(self, q, k, v, mask=None):
        temperature = self.temperature
        if temperature is None:
            temperature = np.sqrt(q.shape[-1])
        attn = np.matmul(q / temperature, np.swapaxes(k, -1, -2))
        if mask is not None:
            attn = np.where(mask == 0, -1e9, attn)
        attn = attn - attn.max(axis=-1, keepdims=True)
        attn = np.exp(attn)
        attn /= attn.sum(axis=-1, keepdims=True)
        output = np.matmul(attn, v)
        return output, attn
