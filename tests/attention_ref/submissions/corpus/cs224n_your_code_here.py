#!/usr/bin/env python
"""
CS224N-style exercise: implement scaled dot-product attention in NumPy.
"""
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    """ Compute scaled dot-product attention.

    @param Q (np.ndarray): queries, shape (n_queries, d_k)
    @param K (np.ndarray): keys, shape (n_keys, d_k)
    @param V (np.ndarray): values, shape (n_keys, d_v)
    @param mask (np.ndarray or None): boolean, shape (n_queries, n_keys);
        True where a query is allowed to look at a key.

    @returns out (np.ndarray): shape (n_queries, d_v)
    """
    ### YOUR CODE HERE (~6 lines)
    d_k = K.shape[1]
    e = Q.dot(K.T) / np.sqrt(d_k)
    if mask is not None:
        e = np.where(mask, e, -np.inf)
    alpha = np.exp(e - e.max(axis=1, keepdims=True))
    alpha = alpha / alpha.sum(axis=1, keepdims=True)
    out = alpha.dot(V)
    ### END YOUR CODE
    return out


def test_shapes():
    Q = np.random.randn(3, 4)
    K = np.random.randn(5, 4)
    V = np.random.randn(5, 6)
    assert scaled_dot_product_attention(Q, K, V).shape == (3, 6)
    print("shape test passed")


if __name__ == "__main__":
    test_shapes()
