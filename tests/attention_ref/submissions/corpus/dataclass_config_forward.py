from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class AttentionConfig:
    scale: float | None = None
    causal: bool = False


class ScaledDotProduct:
    def __init__(self, config: AttentionConfig | None = None) -> None:
        self.config = config or AttentionConfig()

    def forward(self, q: np.ndarray, k: np.ndarray, v: np.ndarray,
                mask: np.ndarray | None = None) -> np.ndarray:
        scale = self.config.scale or 1.0 / np.sqrt(q.shape[-1])
        s = (q @ k.T) * scale
        if self.config.causal:
            s = s + np.triu(np.full(s.shape, -np.inf), 1)
        if mask is not None:
            s = np.where(mask == 0, -1e9, s)
        s = s - np.max(s, axis=-1, keepdims=True)
        p = np.exp(s)
        return (p / np.sum(p, axis=-1, keepdims=True)) @ v
