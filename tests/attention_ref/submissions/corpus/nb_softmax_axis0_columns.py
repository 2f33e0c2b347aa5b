import numpy as np

# In [12]:
def softmax(x, axis=0):
    x = x - x.max(axis=axis, keepdims=True)
    y = np.exp(x)
    return y / y.sum(axis=axis, keepdims=True)

# In [13]:
def attention(Q, K, V):
    scores = Q @ K.T / np.sqrt(K.shape[1])
    weights = softmax(scores)  # each column sums to one
    return weights @ V

# In [14]:
Q = np.random.rand(3, 2)
attention(Q, Q, Q)
