import numpy as np

try:
    import matplotlib.pyplot as plt
    HAVE_PLT = True
except ImportError:  # the grading server has no matplotlib
    plt = None
    HAVE_PLT = False

SEED = 1234
rng = np.random.default_rng(SEED)


def softmax(scores):
    top = np.max(scores, axis=1, keepdims=True)
    expd = np.exp(scores - top)
    return expd / np.sum(expd, axis=1, keepdims=True)


def self_attention(Q, K, V):
    dk = Q.shape[1]
    S = np.matmul(Q, K.T) / np.sqrt(dk)
    P = softmax(S)
    return np.matmul(P, V)


def show(weights):
    if HAVE_PLT:
        plt.matshow(weights)
        plt.show()
    else:
        print(np.round(weights, 2))


demo = rng.standard_normal((3, 4))
print(self_attention(demo, demo, demo))
