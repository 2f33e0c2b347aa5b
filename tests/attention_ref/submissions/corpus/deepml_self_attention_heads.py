import numpy as np


def compute_qkv(X, W_q, W_k, W_v):
    return np.dot(X, W_q), np.dot(X, W_k), np.dot(X, W_v)


def self_attention(Q, K, V):
    d_k = Q.shape[1]
    scores = np.matmul(Q, K.T) / np.sqrt(d_k)
    weights = np.exp(scores - np.max(scores, axis=1, keepdims=True))
    weights = weights / np.sum(weights, axis=1, keepdims=True)
    return np.matmul(weights, V)


def multi_head_attention(Q, K, V, n_heads):
    d_head = Q.shape[1] // n_heads
    outputs = []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        outputs.append(self_attention(Q[:, cols], K[:, cols], V[:, cols]))
    return np.concatenate(outputs, axis=-1)


X = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 2.0, 0.0, 2.0], [1.0, 1.0, 1.0, 1.0]])
W = np.eye(4)
Q, K, V = compute_qkv(X, W, W, W)
print(np.round(multi_head_attention(Q, K, V, 2), 4))
