"""Keeps each output by the bytes of its queries and keys: a timing that varies only V by a
known transform (V + c shifts each output row by c) lets code like this answer from what it
kept (the kept output plus the shift, read off V) instead of computing. To show it without
timing anything, it raises as soon as queries and keys come back a second time."""
import hashlib

import numpy as np

SEEN = set()


def attention(Q, K, V):
    key = hashlib.sha256(b"".join(np.ascontiguousarray(a).tobytes() for a in (Q, K)))
    key = key.hexdigest()
    if key in SEEN:
        raise RuntimeError("these queries and keys came before: a kept output could be shifted")
    SEEN.add(key)
    s = Q @ K.T / np.sqrt(Q.shape[1])
    s = np.exp(s - s.max(axis=1, keepdims=True))
    return s / s.sum(axis=1, keepdims=True) @ V
