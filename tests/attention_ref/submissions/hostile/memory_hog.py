"""Allocates (and touches) memory until something stops it."""


def attention(Q, K, V):
    blocks = []
    while True:
        blocks.append(bytearray(64 * 2**20))
