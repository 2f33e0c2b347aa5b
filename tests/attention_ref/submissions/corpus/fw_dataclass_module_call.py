from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class AttentionConfig:
    scale: float | None = None  # None: 1/sqrt(head_dim)
    dropout: float = 0.0


@dataclass
class DotProductAttention:
    config: AttentionConfig = AttentionConfig()

    def _scale(self, head_dim: int) -> float:
        if self.config.scale is not None:
            return self.config.scale
        return 1.0 / float(np.sqrt(head_dim))

    def __call__(self, q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
        scores = (q @ np.swapaxes(k, -1, -2)) * self._scale(q.shape[-1])
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        return scores @ v
