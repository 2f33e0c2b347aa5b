"""Prints 100 MB (and some stderr) but returns the right answer: output is capped, not failed."""

import sys

import numpy as np


def attention(Q, K, V):
    line = "flood " * 170_000 + "\n"  # about 1 MB
    for _ in range(100):
        sys.stdout.write(line)
    sys.stderr.write("e" * 300_000 + "\n")
    print("END OF FLOOD")
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (weights / weights.sum(axis=-1, keepdims=True)) @ V
