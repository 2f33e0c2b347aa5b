"""Remembers each output by the bytes of its inputs and returns it again for the same inputs: a
timing ladder that calls it with one input set per size times a dictionary lookup, not the code.
To show it without timing anything, it raises as soon as inputs come back a second time."""
import hashlib

import numpy as np

SEEN = {}


def attention(Q, K, V):
    key = hashlib.sha256(b"".join(np.ascontiguousarray(a).tobytes() for a in (Q, K, V)))
    key = key.hexdigest()
    if key in SEEN:
        raise RuntimeError("these inputs came before: their output could be replayed")
    s = Q @ K.T / np.sqrt(Q.shape[1])
    s = np.exp(s - s.max(axis=1, keepdims=True))
    SEEN[key] = out = s / s.sum(axis=1, keepdims=True) @ V
    return out
