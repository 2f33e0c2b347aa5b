import numpy as np


class MultiHeadAttention:
    def __init__(self, d_model, num_heads, seed=0):
        rng = np.random.default_rng(seed)
        self.h = num_heads
        self.W_q = rng.normal(size=(d_model, d_model)) / np.sqrt(d_model)
        self.W_k = rng.normal(size=(d_model, d_model)) / np.sqrt(d_model)
        self.W_v = rng.normal(size=(d_model, d_model)) / np.sqrt(d_model)

    def forward(self, x):
        q, k, v = x @ self.W_q, x @ self.W_k, x @ self.W_v
        s = q @ k.T / np.sqrt(q.shape[-1])
        s = np.exp(s - s.max(-1, keepdims=True))
        return (s / s.sum(-1, keepdims=True)) @ v
