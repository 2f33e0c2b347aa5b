import numpy as np


class Attention:
    def forward(self, queries, keys, values):
        scores = queries @ keys.T
        scores = scores - scores.max(axis=-1, keepdims=True)
        probs = np.exp(scores)
        probs = probs / probs.sum(axis=-1, keepdims=True)
        return probs @ values
