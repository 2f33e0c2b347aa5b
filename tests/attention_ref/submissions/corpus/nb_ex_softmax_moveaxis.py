import numpy as np


def softmax(x, axis=-1):
    x = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    z = x - x.max(axis=-1)[..., None]
    e = np.exp(z)
    out = e / e.sum(axis=-1)[..., None]
    return np.moveaxis(out, -1, axis)


assert np.allclose(softmax(np.zeros((2, 3)), axis=0), 0.5)
