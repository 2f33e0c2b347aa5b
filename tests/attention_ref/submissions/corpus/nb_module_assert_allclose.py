import numpy as np
np.random.seed(7)


# ---- loop version from lecture (slow, for checking) ----
def attention_loops(Q, K, V):
    n, d = Q.shape
    m = K.shape[0]
    out = np.zeros((n, V.shape[1]))
    for i in range(n):
        s = np.array([Q[i] @ K[j] for j in range(m)]) / np.sqrt(d)
        s = np.exp(s - s.max())
        s = s / s.sum()
        for j in range(m):
            out[i] += s[j] * V[j]
    return out


# ---- vectorised version (the one to hand in) ----
def attention(Q, K, V):
    s = Q @ K.T
    s /= np.sqrt(Q.shape[1])
    s -= s.max(axis=1)[:, None]
    p = np.exp(s)
    p /= p.sum(axis=1)[:, None]
    return p @ V


_q, _k, _v = np.random.randn(5, 3), np.random.randn(7, 3), np.random.randn(7, 2)
np.testing.assert_allclose(attention(_q, _k, _v), attention_loops(_q, _k, _v), rtol=1e-10)
print("vectorised == loops")
