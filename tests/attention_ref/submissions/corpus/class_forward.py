import numpy as np


class ScaledDotProductAttention:
    """Scaled dot-product attention, written like a PyTorch module."""

    def __init__(self, temperature=None):
        self.temperature = temperature

    def softmax(self, x):
        x = x - np.max(x, axis=-1, keepdims=True)
        e = np.exp(x)
        return e / np.sum(e, axis=-1, keepdims=True)

    def forward(self, q, k, v, mask=None):
        temperature = self.temperature or np.sqrt(k.shape[-1])
        attn = q @ k.T / temperature
        if mask is not None:
            attn = np.where(mask, attn, -1e9)
        attn = self.softmax(attn)
        output = attn @ v
        return output, attn

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)
