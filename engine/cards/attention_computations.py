"""The catalogue's softmax and attention computations, worked out by `attention_ref`.

Each entry takes small matrices or score vectors from the bank (or drawn for a review) and
returns a number or a list of numbers; its slips are the classic wrong ways to get there (no
scaling, dividing by d_k, normalizing the wrong axis, dividing by the plain sum).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.cards.computation import Computation, Inputs, Param, Slip


def softmax_of(inputs: Inputs) -> list[float]:
    """softmax(scores / divisor) with the reference kernel's stable softmax."""
    from attention_ref.reference import stable_softmax

    divisor = float(inputs.get("divisor", 1.0))
    return [float(x) for x in stable_softmax([s / divisor for s in inputs["scores"]])]


def _sum_normalised(inputs: Inputs) -> list[float] | None:
    total = sum(inputs["scores"])
    return None if total == 0 else [s / total for s in inputs["scores"]]


def _softmax_backward(inputs: Inputs, coupled: bool = True) -> list[float]:
    """∂L/∂s for p = softmax(s) and upstream g = ∂L/∂p: p ⊙ (g − Σⱼ gⱼ pⱼ)."""
    p, g = softmax_of(inputs), [float(x) for x in inputs["upstream"]]
    mean = sum(gj * pj for gj, pj in zip(g, p, strict=True)) if coupled else 0.0
    return [pi * (gi - mean) for pi, gi in zip(p, g, strict=True)]


def _weights_and_output(inputs: Inputs) -> tuple[list[list[float]], list[list[float]]]:
    import numpy as np

    from attention_ref.reference import attention

    Q, K = inputs["Q"], inputs["K"]
    V = inputs.get("V") or np.zeros((len(K), 1))
    out, weights = attention(Q, K, V, causal=inputs.get("causal", False), return_weights=True)
    return weights.tolist(), out.tolist()


def _variant(inputs: Inputs, scale: str, axis: int) -> tuple[Any, Any]:
    """Weights and output computed with a classic slip: another scale or softmax axis."""
    import numpy as np

    from attention_ref.reference import causal_mask, stable_softmax

    q, k = np.asarray(inputs["Q"], float), np.asarray(inputs["K"], float)
    d_k = q.shape[-1]
    divisor = {"sqrt": np.sqrt(d_k), "none": 1.0, "d_k": float(d_k)}[scale]
    s = q @ k.T / divisor
    if inputs.get("causal", False):
        s = s + causal_mask(*s.shape)
    weights = stable_softmax(s, axis=axis)
    v = np.asarray(inputs["V"], float) if inputs.get("V") else np.zeros((len(k), 1))
    return weights, weights @ v


def _scores(inputs: Inputs, scaled: bool | None = None) -> list[list[float]]:
    import numpy as np

    q, k = np.asarray(inputs["Q"], float), np.asarray(inputs["K"], float)
    use_scale = inputs.get("scaled", False) if scaled is None else scaled
    s = q @ k.T / (np.sqrt(q.shape[-1]) if use_scale else 1.0)
    return [[float(x) for x in row] for row in s]


def _weighted_values(inputs: Inputs) -> list[list[float]]:
    import numpy as np

    return (np.asarray(inputs["weights"], float) @ np.asarray(inputs["V"], float)).tolist()


def _attention_shapes(inputs: Inputs) -> str | None:
    Q, K, V = inputs["Q"], inputs["K"], inputs.get("V")
    if len(Q[0]) != len(K[0]):
        return f"Q and K need the same width d_k ({len(Q[0])} and {len(K[0])})"
    if V is not None and len(V) != len(K):
        return f"K and V need the same number of rows T_k ({len(K)} and {len(V)})"
    return _row_col_in_range(inputs, len(Q), len(K) if V is None else len(V[0]))


def _row_col_in_range(inputs: Inputs, rows: int, width: int) -> str | None:
    if "row" in inputs and inputs["row"] > rows:
        return f"row {inputs['row']} is past the {rows} rows"
    if "col" in inputs and inputs["col"] > width:
        return f"col {inputs['col']} is past the {width} columns"
    return None


def _weights_and_values(inputs: Inputs) -> str | None:
    A, V = inputs["weights"], inputs["V"]
    if len(A[0]) != len(V):
        return f"the weights have {len(A[0])} columns but V has {len(V)} rows"
    if any(x < 0 for row in A for x in row) or any(abs(sum(row) - 1) > 1e-9 for row in A):
        return "each row of weights must be non-negative and sum to 1"
    return _row_col_in_range(inputs, len(A), len(V[0]))


def _same_length(inputs: Inputs) -> str | None:
    n, m = len(inputs["scores"]), len(inputs["upstream"])
    return None if n == m else f"scores and upstream differ in length ({n} and {m})"


def _index_in_range(inputs: Inputs) -> str | None:
    n = len(inputs["scores"])
    return None if inputs["index"] <= n else f"index {inputs['index']} is past the {n} scores"


def _entry(value: Callable[[Inputs], Any]) -> Callable[[Inputs], Any]:
    """The entry (row, col) of a matrix-valued function, or None when it has none."""

    def entry(inputs: Inputs) -> Any:
        full = value(inputs)
        return None if full is None else float(full[inputs["row"] - 1][inputs["col"] - 1])

    return entry


def _row(value: Callable[[Inputs], Any]) -> Callable[[Inputs], Any]:
    def row(inputs: Inputs) -> Any:
        full = value(inputs)
        return None if full is None else [float(x) for x in full[inputs["row"] - 1]]

    return row


def _attention_slips(which: int) -> tuple[Slip, ...]:
    """Slips of attention: `which` is 0 for the weights, 1 for the output."""
    return (
        Slip(
            "that leaves out the scaling: divide the scores by √d_k before the softmax",
            lambda i: _variant(i, "none", -1)[which],
        ),
        Slip(
            "that divides the scores by d_k; the scale is √d_k",
            lambda i: _variant(i, "d_k", -1)[which],
        ),
        Slip(
            "that normalizes each column (axis 0); each query's row of weights must sum to 1",
            lambda i: _variant(i, "sqrt", 0)[which],
        ),
    )


SCORES = {"scores": Param("vector"), "divisor": Param("positive", default=1.0)}
INDEX = {"index": Param("index")}
QK = {"Q": Param("matrix"), "K": Param("matrix"), "causal": Param("flag", default=False)}
QKV = {**QK, "V": Param("matrix")}
ROW, COL = {"row": Param("index")}, {"col": Param("index")}
SUM_NORMALISED = (
    "that divides each score by the sum of the scores; softmax divides exponentials, e^sᵢ / Σⱼ e^sⱼ"
)

ATTENTION_MENU = (
    Computation("softmax", SCORES, softmax_of, slips=(Slip(SUM_NORMALISED, _sum_normalised),)),
    Computation(
        "softmax_entry",
        {**SCORES, **INDEX},
        lambda i: softmax_of(i)[i["index"] - 1],
        _index_in_range,
        slips=(
            Slip(
                SUM_NORMALISED,
                lambda i: None if (v := _sum_normalised(i)) is None else v[i["index"] - 1],
            ),
        ),
    ),
    Computation(
        "jacobian_diagonal",
        SCORES,
        lambda i: [p * (1 - p) for p in softmax_of(i)],
        slips=(
            Slip(
                "that is −pᵢ² alone; the diagonal also has the +pᵢ from δᵢᵢ = 1",
                lambda i: [-p * p for p in softmax_of(i)],
            ),
            Slip(
                "the factor pᵢ in front is missing: pᵢ(1 − pᵢ)",
                lambda i: [1 - p for p in softmax_of(i)],
            ),
        ),
    ),
    Computation(
        "softmax_backward",
        {**SCORES, "upstream": Param("vector")},
        _softmax_backward,
        _same_length,
        slips=(
            Slip(
                "that is p ⊙ g alone; every weight depends on every score, so subtract the "
                "weighted mean Σⱼ gⱼ pⱼ from g first",
                lambda i: _softmax_backward(i, coupled=False),
            ),
        ),
    ),
    Computation(
        "score_row",
        {**QK, **ROW, "scaled": Param("flag", default=False)},
        _row(_scores),
        _attention_shapes,
        slips=(
            Slip(
                "that divides by √d_k; this asks for the raw scores Q Kᵀ",
                _row(lambda i: _scores(i, scaled=True)),
            ),
        ),
    ),
    Computation(
        "weighted_values_row",
        {"weights": Param("matrix"), "V": Param("matrix"), **ROW},
        _row(_weighted_values),
        _weights_and_values,
    ),
    Computation(
        "attention_weights_row",
        {**QK, **ROW},
        _row(lambda i: _weights_and_output(i)[0]),
        _attention_shapes,
        tuple(Slip(s.message, _row(s.value)) for s in _attention_slips(0)),
    ),
    Computation(
        "attention_weight",
        {**QK, **ROW, **COL},
        _entry(lambda i: _weights_and_output(i)[0]),
        _attention_shapes,
        tuple(Slip(s.message, _entry(s.value)) for s in _attention_slips(0)),
    ),
    Computation(
        "attention_output_row",
        {**QKV, **ROW},
        _row(lambda i: _weights_and_output(i)[1]),
        _attention_shapes,
        tuple(Slip(s.message, _row(s.value)) for s in _attention_slips(1)),
    ),
    Computation(
        "attention_output",
        {**QKV, **ROW, **COL},
        _entry(lambda i: _weights_and_output(i)[1]),
        _attention_shapes,
        tuple(Slip(s.message, _entry(s.value)) for s in _attention_slips(1)),
    ),
)
