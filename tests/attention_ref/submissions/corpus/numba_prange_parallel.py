import numpy as np
import numba as nb


@nb.njit(parallel=True, fastmath=False)
def sdpa(q, k, v):
    tq = q.shape[0]
    dk = q.shape[1]
    out = np.empty((tq, v.shape[1]), dtype=np.float64)
    for i in nb.prange(tq):
        s = (k @ q[i]) / np.sqrt(dk)
        s = np.exp(s - s.max())
        s = s / s.sum()
        out[i] = s @ v
    return out


if __name__ == "__main__":
    rng = np.random.default_rng(1)
    q = rng.standard_normal((8, 4))
    print(sdpa(q, q, q).shape)
