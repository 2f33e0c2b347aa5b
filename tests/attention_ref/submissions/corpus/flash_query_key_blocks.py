"""FlashAttention (v1) forward pass in NumPy, for learning.

Outer loop over blocks of keys/values, inner loop over blocks of queries, with the
running statistics m (max) and l (sum of exponentials) kept per query row.
"""

from typing import Tuple

import numpy as np

Br = 16  # query rows per tile
Bc = 16  # key columns per tile


def _tiles(n: int, size: int):
    for lo in range(0, n, size):
        yield lo, min(lo + size, n)


def flash_attention(Q: np.ndarray, K: np.ndarray, V: np.ndarray) -> np.ndarray:
    N, d = Q.shape
    O = np.zeros((N, V.shape[1]), dtype=np.float64)
    l = np.zeros(N)
    m = np.full(N, -np.inf)
    tau = 1.0 / np.sqrt(d)
    for kj0, kj1 in _tiles(K.shape[0], Bc):
        Kj, Vj = K[kj0:kj1], V[kj0:kj1]
        for qi0, qi1 in _tiles(N, Br):
            Qi = Q[qi0:qi1]
            S = tau * Qi @ Kj.T
            m_tile = S.max(axis=1)
            P = np.exp(S - m_tile[:, None])
            l_tile = P.sum(axis=1)
            m_new = np.maximum(m[qi0:qi1], m_tile)
            a = np.exp(m[qi0:qi1] - m_new)
            b = np.exp(m_tile - m_new)
            l_new = a * l[qi0:qi1] + b * l_tile
            O[qi0:qi1] = ((l[qi0:qi1] * a)[:, None] * O[qi0:qi1]
                          + b[:, None] * (P @ Vj)) / l_new[:, None]
            l[qi0:qi1] = l_new
            m[qi0:qi1] = m_new
    return O


def _check() -> Tuple[float, float]:
    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((40, 8)) for _ in range(3))
    s = q @ k.T / np.sqrt(8)
    p = np.exp(s - s.max(1, keepdims=True))
    ref = (p / p.sum(1, keepdims=True)) @ v
    return float(np.abs(flash_attention(q, k, v) - ref).max()), 1e-12


if __name__ == "__main__":
    print(_check())
