def attention(Q, K, V):
    raise ValueError("not written yet")
