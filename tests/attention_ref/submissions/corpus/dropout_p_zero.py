from typing import Optional

import numpy as np


def attention(
    Q: np.ndarray,
    K: np.ndarray,
    V: np.ndarray,
    dropout_p: float = 0.0,
    training: bool = False,
    rng: Optional[np.random.Generator] = None,
) -> np.ndarray:
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    if training and dropout_p > 0.0:
        rng = rng or np.random.default_rng()
        keep = rng.random(weights.shape) >= dropout_p
        weights = weights * keep / (1.0 - dropout_p)
    return weights @ V
