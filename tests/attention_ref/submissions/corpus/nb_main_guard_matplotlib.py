"""Assignment 2, part (b): self-attention from scratch.

Run this file to see a heat map of the attention weights.
"""
import numpy as np


def stable_softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def attention(Q, K, V):
    """Return (context, attention_weights)."""
    scale = 1.0 / np.sqrt(K.shape[1])
    logits = np.dot(Q, K.T) * scale
    A = stable_softmax(logits)
    context = np.dot(A, V)
    return context, A


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(0)
    x = rng.normal(size=(10, 16))
    ctx, A = attention(x, x, x)
    plt.imshow(A, cmap="viridis")
    plt.colorbar()
    plt.title("self-attention weights")
    plt.show()
