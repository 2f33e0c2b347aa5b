import functools

import numpy as np


@functools.lru_cache(maxsize=16)
def _attention_cached(q_bytes, q_shape, k_bytes, k_shape, v_bytes, v_shape, dtype):
    q = np.frombuffer(q_bytes, dtype=dtype).reshape(q_shape)
    k = np.frombuffer(k_bytes, dtype=dtype).reshape(k_shape)
    v = np.frombuffer(v_bytes, dtype=dtype).reshape(v_shape)
    s = q @ k.T / np.sqrt(q_shape[-1])
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w /= w.sum(axis=-1, keepdims=True)
    out = w @ v
    out.setflags(write=False)
    return out


def attention(Q, K, V):
    """Memoised on the arrays' contents (bytes + shape + dtype), so equal inputs share a result."""
    dtype = np.result_type(Q, K, V)
    arrays = [np.ascontiguousarray(a, dtype=dtype) for a in (Q, K, V)]
    key = []
    for a in arrays:
        key += [a.tobytes(), a.shape]
    return _attention_cached(*key, dtype.str).copy()
