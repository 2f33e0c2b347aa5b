import numpy as np


class MultiHeadAttention:
    def __init__(self, d_model, num_heads, seed=0):
        assert d_model % num_heads == 0
        rng = np.random.default_rng(seed)
        self.d_model = d_model
        self.num_heads = num_heads
        self.depth = d_model // num_heads
        self.wq = rng.standard_normal((d_model, d_model)) / np.sqrt(d_model)
        self.wk = rng.standard_normal((d_model, d_model)) / np.sqrt(d_model)
        self.wv = rng.standard_normal((d_model, d_model)) / np.sqrt(d_model)
        self.wo = rng.standard_normal((d_model, d_model)) / np.sqrt(d_model)

    @staticmethod
    def scaled_dot_product(q, k, v, mask=None):
        dk = q.shape[-1]
        logits = q @ np.swapaxes(k, -1, -2) / np.sqrt(dk)
        if mask is not None:
            logits = logits + mask * -1e9
        logits = logits - logits.max(axis=-1, keepdims=True)
        w = np.exp(logits)
        w = w / w.sum(axis=-1, keepdims=True)
        return w @ v, w

    def split_heads(self, x):
        t = x.shape[0]
        return x.reshape(t, self.num_heads, self.depth).transpose(1, 0, 2)

    def __call__(self, x, mask=None):
        q = self.split_heads(x @ self.wq)
        k = self.split_heads(x @ self.wk)
        v = self.split_heads(x @ self.wv)
        out, _ = self.scaled_dot_product(q, k, v, mask)
        out = out.transpose(1, 0, 2).reshape(x.shape[0], self.d_model)
        return out @ self.wo
