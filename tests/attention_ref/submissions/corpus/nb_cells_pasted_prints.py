# Exported from "week3_attention.ipynb" -- cells pasted one after another.
import numpy as np

np.random.seed(42)

# %% [cell 2] toy data
Q = np.random.randn(4, 8)
K = np.random.randn(6, 8)
V = np.random.randn(6, 5)
print("shapes:", Q.shape, K.shape, V.shape)

# %% [cell 3] softmax
import math


def softmax(x, axis=-1):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    ex = np.exp(shifted)
    return ex / ex.sum(axis=axis, keepdims=True)


print(softmax(np.array([1.0, 2.0, 3.0])))

# %% [cell 4] attention
def scaled_dot_product_attention(Q, K, V):
    d_k = Q.shape[-1]
    scores = Q @ K.T / math.sqrt(d_k)
    weights = softmax(scores, axis=-1)
    return weights @ V, weights


out, w = scaled_dot_product_attention(Q, K, V)
print(out.shape)
assert out.shape == (4, 5)
assert np.allclose(w.sum(axis=1), 1.0)
print("all good!")
