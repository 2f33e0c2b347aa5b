import numpy as np


def softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def split_heads(x, n_heads):
    T, d_model = x.shape
    return x.reshape(T, n_heads, d_model // n_heads).transpose(1, 0, 2)  # (H, T, dh)


def merge_heads(x):
    H, T, dh = x.shape
    return x.transpose(1, 0, 2).reshape(T, H * dh)


def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads):
    q = split_heads(X @ W_q, n_heads)
    k = split_heads(X @ W_k, n_heads)
    v = split_heads(X @ W_v, n_heads)
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    heads = softmax(scores) @ v
    return merge_heads(heads) @ W_o


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5, 8))
    Ws = [rng.normal(size=(8, 8)) for _ in range(4)]
    print(multi_head_attention(X, *Ws, n_heads=2).shape)
