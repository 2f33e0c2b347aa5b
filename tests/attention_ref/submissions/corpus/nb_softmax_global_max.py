import numpy as np

rng = np.random.default_rng(2024)


def softmax(z):
    # subtract the max so that exp never overflows
    z = z - np.max(z)
    e = np.exp(z)
    return e / np.sum(e, axis=-1, keepdims=True)


def scaled_dot_product_attention(Q, K, V):
    dk = Q.shape[-1]
    return softmax(Q @ K.T / np.sqrt(dk)) @ V


q = rng.normal(size=(3, 4))
print(scaled_dot_product_attention(q, q, q).round(3))
