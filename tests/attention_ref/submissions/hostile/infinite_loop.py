"""Never returns: the parent's wall clock must end it."""


def attention(Q, K, V):
    n = 0
    while True:
        n += 1
