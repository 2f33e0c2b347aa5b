# Answer: you don't need a framework for this, plain numpy is enough.
import numpy as np

def dot_product_attention(q, k, v):
    scores = np.dot(q, k.T)                       # similarity of every query with every key
    scores = scores - scores.max(axis=1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=1, keepdims=True)             # each row sums to one
    return np.dot(w, v)

# q = np.random.rand(4, 8); k = np.random.rand(6, 8); v = np.random.rand(6, 8)
# print(dot_product_attention(q, k, v).shape)  # (4, 8)
