import numpy as np


class Module:
    """Tiny stand-in for torch.nn.Module."""

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def forward(self, *args, **kwargs):
        raise NotImplementedError


class Softmax(Module):
    def __init__(self, dim=-1):
        self.dim = dim

    def forward(self, x):
        x = x - x.max(axis=self.dim, keepdims=True)
        e = np.exp(x)
        return e / e.sum(axis=self.dim, keepdims=True)


class SelfAttention(Module):
    def __init__(self):
        self.softmax = Softmax(dim=-1)

    def forward(self, q, k, v):
        scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
        return self.softmax(scores) @ v
