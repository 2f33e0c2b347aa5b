import copy
import math

import numpy as np


def subsequent_mask(size):
    "Mask out subsequent positions (1 = may attend)."
    attn_shape = (1, size, size)
    upper = np.triu(np.ones(attn_shape), k=1).astype("uint8")
    return upper == 0


def softmax(x, axis=-1):
    z = x - x.max(axis=axis, keepdims=True)
    return np.exp(z) / np.exp(z).sum(axis=axis, keepdims=True)


def attention(query, key, value, mask=None, dropout=None):
    "Compute 'Scaled Dot Product Attention'"
    d_k = query.shape[-1]
    scores = query @ np.swapaxes(key, -2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask == 0, -1e9, scores)
    p_attn = softmax(scores, axis=-1)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return p_attn @ value, p_attn


def clones(module, N):
    return [copy.deepcopy(module) for _ in range(N)]


class Linear:
    def __init__(self, d_in, d_out, rng):
        self.w = rng.standard_normal((d_in, d_out)) / math.sqrt(d_in)
        self.b = np.zeros(d_out)

    def __call__(self, x):
        return x @ self.w + self.b


class MultiHeadedAttention:
    def __init__(self, h, d_model, dropout=0.1, seed=0):
        "Take in model size and number of heads."
        assert d_model % h == 0
        self.d_k = d_model // h
        self.h = h
        self.linears = clones(Linear(d_model, d_model, np.random.default_rng(seed)), 4)
        self.attn = None

    def forward(self, query, key, value, mask=None):
        if mask is not None:
            mask = mask[:, None]  # the same mask for every head
        nbatches = query.shape[0]
        query, key, value = [
            lin(x).reshape(nbatches, -1, self.h, self.d_k).transpose(0, 2, 1, 3)
            for lin, x in zip(self.linears, (query, key, value))
        ]
        x, self.attn = attention(query, key, value, mask=mask)
        x = x.transpose(0, 2, 1, 3).reshape(nbatches, -1, self.h * self.d_k)
        return self.linears[-1](x)
