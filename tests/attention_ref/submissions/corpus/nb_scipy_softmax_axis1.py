import numpy as np
from scipy.special import softmax

np.random.seed(0)


def attention(Q, K, V):
    logits = np.matmul(Q, K.T) / np.sqrt(K.shape[-1])
    A = softmax(logits, axis=1)
    return np.matmul(A, V)


print(attention(np.ones((2, 3)), np.ones((4, 3)), np.arange(8.0).reshape(4, 2)))
