"""How a submission is called: the form of its inputs and the values of its extra parameters.

The grader learns the form by calling (`probe`): 2-D (T, d), batched (B, T, d) or (B, H, T, d),
(B, T, H, d) (the sequence before the heads, as flash-attn and xformers lay it out), one vector
for a softmax written for vectors, or Python lists; and the mask convention from the masked
case. Timing calls the submission through the same `CallPlan`, so it times what was
graded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from attention_ref.discovery import Found
from attention_ref.reference import Array
from attention_ref.sandbox import CallResult, Sandbox


@dataclass(frozen=True)
class MaskConvention:
    label: str
    causal: Callable[[Array], Array]  # from a keep-mask (True = may attend)
    attend_all: Callable[[tuple[int, ...]], Array]
    style: str  # "additive", "keep" (nonzero = attend) or "block" (nonzero = masked)


CONVENTIONS = (
    MaskConvention(
        "additive 0 / -inf",
        lambda keep: np.where(keep, 0.0, -np.inf),
        lambda shape: np.zeros(shape),
        "additive",
    ),
    MaskConvention(
        "boolean keep (True = attend)",
        lambda keep: keep,
        lambda shape: np.ones(shape, bool),
        "keep",
    ),
    MaskConvention(
        "0/1 block (1 = masked, as in scores += mask * -1e9)",
        lambda keep: (~keep).astype(np.float64),
        lambda shape: np.zeros(shape),
        "block",
    ),
    MaskConvention(
        "boolean block (True = masked)",
        lambda keep: ~keep,
        lambda shape: np.zeros(shape, bool),
        "block",
    ),
    MaskConvention(
        "0/1 keep (1 = attend)",
        lambda keep: keep.astype(np.float64),
        lambda shape: np.ones(shape),
        "keep",
    ),
    MaskConvention(
        "additive 0 / -1e9",
        lambda keep: np.where(keep, 0.0, -1e9),
        lambda shape: np.zeros(shape),
        "additive",
    ),
)

# A padding mask over keys that the code requires is given masking nothing, in each convention
# until one runs right: (T_k,) for 2-D code, (B, T_k) for batched code (one row per sequence).
PADDING_CONVENTIONS: dict[str, Callable[[tuple[int, ...]], Array]] = {
    "padding mask over keys masking none, boolean keep (all True)": lambda shape: np.ones(
        shape, bool
    ),
    "padding mask over keys masking none, boolean (all False: True = padding)": lambda shape: (
        np.zeros(shape, bool)
    ),
    "padding mask over keys masking none, all 0 (additive, or 1 = padding)": np.zeros,
    "padding mask over keys masking none, all 1 (1 = attend)": np.ones,
}

FORMS = {
    1: "one vector of scores",
    2: "2-D inputs (T, d)",
    3: "batched inputs (B, T, d)",
    4: "batched inputs (B, H, T, d)",
}
SEQUENCE_BEFORE_HEADS = "batched inputs (B, T, H, d), the sequence before the heads"


@dataclass
class CallPlan:
    found: Found
    rank: int = 2
    as_lists: bool = False
    convention: MaskConvention | None = None
    float32: bool = True  # False: written for float64 only (timing then uses float64)
    # Rank 4 laid out (B, T, H, d): the cases stay (B, H, T, d) and `call` swaps axes 1 and 2
    # of Q, K, V on the way in and of the output on the way out.
    sequence_first: bool = False
    # The convention of a required padding mask over keys: the first that ran right.
    padding: str = next(iter(PADDING_CONVENTIONS))

    def describe(self) -> str:
        words = FORMS.get(self.rank, f"rank {self.rank}")
        if self.rank == 4 and self.sequence_first:
            words = SEQUENCE_BEFORE_HEADS
        if self.as_lists:
            words += ", passed as Python lists"
        if self.convention is not None:
            words += f"; mask {self.convention.label}"
        if self._padding_required():
            words += f"; {self.padding}"
        switched = [
            f"{param}={'0' if role == 'zero' else 'False'}"
            for param, role in self.found.roles.items()
            if role in {"zero", "false"} and param in self.found.on_by_default
        ]
        if switched:
            words += f"; evaluated with {', '.join(switched)} (their defaults turn them on)"
        return words

    def mask_attempts(self, t_q: int, t_k: int, causal: bool) -> list[tuple[str, Any]]:
        """(convention label, mask) to try, the learned convention first; [] when no mask. A
        required padding mask (and no causal one) is tried in each convention, masking nothing
        (`call` shapes it for the inputs)."""
        if not self.found.takes_mask and self._padding_required():
            labels = sorted(PADDING_CONVENTIONS, key=lambda label: label != self.padding)
            return [(label, None) for label in labels]
        if not self.found.takes_mask or not (causal or self.found.mask_required):
            return []
        keep = np.tril(np.ones((t_q, t_k), dtype=bool))
        order = [c for c in CONVENTIONS if c is self.convention]
        order += [c for c in CONVENTIONS if c is not self.convention]
        return [(c.label, c.causal(keep) if causal else c.attend_all((t_q, t_k))) for c in order]

    def _padding_required(self) -> bool:
        return any(
            role == "padding" and param in self.found.required
            for param, role in self.found.roles.items()
        )

    def keywords(self, args: tuple[Array, ...], causal: bool) -> dict[str, Any]:
        """The values of the parameters after Q, K, V (the mask aside)."""
        found = self.found
        values: dict[str, Any] = {}
        for param, role in found.roles.items():
            required = param in found.required
            if role == "padding" and required:  # masking none (beside a causal mask)
                values[param] = PADDING_CONVENTIONS[self.padding](_keys_shape(args))
            elif role == "bias" and required:  # an additive bias of zeros adds nothing
                values[param] = np.zeros((args[0].shape[-2], args[1].shape[-2]))
            elif role == "causal":  # always said: its default may be True
                values[param] = bool(causal)
            elif role == "d_k":
                values[param] = int(args[0].shape[-1])
            elif role == "axis" and required:
                values[param] = -1
            elif role == "zero" and (required or param in found.on_by_default):
                values[param] = 0.0  # dropout is off when evaluating
            elif role == "false" and (required or param in found.on_by_default):
                values[param] = False  # so is training mode
        return values

    def call(
        self,
        box: Sandbox,
        args: tuple[Array, ...],
        *,
        causal: bool = False,
        mask: tuple[str, Any] | None = None,
    ) -> CallResult:
        keywords = self.keywords(args, causal)
        if mask is not None and mask[0] in PADDING_CONVENTIONS:
            padding = self.found.parameter("padding") or "key_padding_mask"
            keywords[padding] = PADDING_CONVENTIONS[mask[0]](_keys_shape(args))
        elif mask is not None:
            keywords[self.found.parameter("mask") or "mask"] = mask[1]
        swapped = self.rank == 4 and self.sequence_first
        if swapped:
            args = tuple(_heads_swapped(a) for a in args)
        result = box.call(*args, as_lists=self.as_lists, **keywords)
        if swapped and result.status == "ok":
            result = replace(result, value=_output_swapped(result.value))
        return result

    def learn(self, label: str) -> None:
        if label in PADDING_CONVENTIONS:
            self.padding = label
        else:
            self.convention = convention_named(label)


def _keys_shape(args: tuple[Any, ...]) -> tuple[int, ...]:
    """A padding mask's shape for these inputs: one entry per key, per sequence of a batch."""
    keys = np.shape(args[1])
    return (*keys[:1], keys[-2]) if len(keys) > 2 else (keys[-2],)


def _heads_swapped(a: Any) -> Any:
    """(B, H, T, d) as (B, T, H, d), and back."""
    return np.ascontiguousarray(np.swapaxes(a, 1, 2)) if np.ndim(a) == 4 else a


def _output_swapped(value: Any) -> Any:
    """The output (the value, or the first item of a tuple or list) back in (B, H, T, d)."""
    if isinstance(value, np.ndarray):
        return _heads_swapped(value)
    if isinstance(value, tuple) and value and isinstance(value[0], np.ndarray):
        return type(value)((_heads_swapped(value[0]), *value[1:]))
    return value


def convention_named(label: str) -> MaskConvention:
    return next(c for c in CONVENTIONS if c.label == label)


def style_of(label: str) -> str | None:
    """The style of a causal mask convention; None for a padding mask's."""
    return next((c.style for c in CONVENTIONS if c.label == label), None)
