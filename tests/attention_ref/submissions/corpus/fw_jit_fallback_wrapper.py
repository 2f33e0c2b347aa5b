import numpy as np

try:  # use JAX when it is there
    from jax import jit
except ImportError:  # pragma: no cover

    def jit(fn, **_):
        return fn


def _sdpa(q, k, v):
    d = q.shape[-1]
    s = q @ k.T / np.sqrt(d)
    s = s - np.max(s, axis=-1, keepdims=True)
    w = np.exp(s)
    return (w / np.sum(w, axis=-1, keepdims=True)) @ v


attention = jit(_sdpa)
