import numpy as np


def softmax(x):
    x = x - x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def attention(Q, K, V):
    weights = softmax(Q @ K.T / np.sqrt(Q.shape[1]))
    return {"output": weights @ V, "weights": weights}


res = attention(np.eye(2), np.eye(2), np.eye(2))
print(res["output"])
