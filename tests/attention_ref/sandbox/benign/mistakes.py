"""Ordinary learner failures: an exception with a line, values that are not numbers."""


def attention(Q, K, V):
    d_k = Q.shape[-1]
    scale = 1 / (d_k - d_k)
    return Q @ K.T * scale @ V


def returns_text(Q, K, V):
    return [["not", "numbers"]]


def returns_objects(Q, K, V):
    return {"output": Q}


def returns_list(Q, K, V):
    return (Q @ K.T @ V).tolist()
