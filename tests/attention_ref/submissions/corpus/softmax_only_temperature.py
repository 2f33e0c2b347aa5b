import numpy as np


def softmax(logits, temperature=1.0, axis=-1):
    """Softmax with a temperature; temperature=1 is the plain softmax."""
    z = np.asarray(logits, dtype=float) / temperature
    z = z - z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)
