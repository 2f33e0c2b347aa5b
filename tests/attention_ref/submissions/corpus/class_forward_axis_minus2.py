import numpy as np


class Attention:
    def softmax(self, x, axis):
        x = x - x.max(axis=axis, keepdims=True)
        y = np.exp(x)
        return y / y.sum(axis=axis, keepdims=True)

    def forward(self, q, k, v):
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
        attn = self.softmax(scores, axis=-2)   # normalise over the sequence
        return attn @ v
