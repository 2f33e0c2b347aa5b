import numpy as np
from scipy.special import softmax


def attention(Q, K, V):
    return softmax(Q @ K.T / np.sqrt(Q.shape[1])) @ V
