"""The catalogue's size and cost computations: memory, FLOPs, time and the roofline.

Counts follow the seed pages' conventions: a multiply-add is 2 FLOPs (`attention_flops` of the
reference kernels), the score matrix holds T² numbers per head per layer, and the arithmetic
intensity of Q Kᵀ counts reading Q and K and both the write of S and the softmax reading it back.
"""

from __future__ import annotations

import math

from engine.cards.computation import (
    BYTE_UNITS,
    COUNT_UNITS,
    DTYPE_BYTES,
    FLOP_UNITS,
    Computation,
    Inputs,
    Param,
    Slip,
)

SIZES = {"heads": Param("count", default=1), "layers": Param("count", default=1)}


def _score_numbers(inputs: Inputs) -> int:
    return int(inputs["T"] ** 2 * inputs["heads"] * inputs["layers"])


def _memory(inputs: Inputs) -> float:
    return _score_numbers(inputs) * DTYPE_BYTES[inputs["dtype"]] / BYTE_UNITS[inputs["unit"]]


def _decimal_memory(inputs: Inputs) -> float:
    """The same bytes in kB, MB or GB (powers of ten) instead of KiB, MiB or GiB."""
    binary = BYTE_UNITS[inputs["unit"]]
    return _memory(inputs) * binary / 1000 ** round(math.log2(binary) / 10)


def _flop_count(inputs: Inputs) -> float:
    from attention_ref.reference import attention_flops

    T = inputs["T"]
    return float(attention_flops(T, T, inputs["d_k"]) * inputs["heads"] * inputs["layers"])


def _seconds(inputs: Inputs) -> float:
    return _flop_count(inputs) / (inputs["peak_gflops"] * 10**9)


def intensity(inputs: Inputs, s_trips: int = 2, per_byte: bool = True) -> float:
    """FLOPs of Q Kᵀ over the bytes of reading Q and K and moving S `s_trips` times."""
    T, d = inputs["T"], inputs["d_k"]
    size = DTYPE_BYTES[inputs["dtype"]] if per_byte else 1
    return 2 * T * T * d / (size * (2 * T * d + s_trips * T * T))


def _crossover(inputs: Inputs, s_trips: int = 2) -> float:
    """The d_k at which the long-sequence intensity of Q Kᵀ meets the machine balance.

    As T grows, 2 T² d / (b (2 T d + s T²)) tends to 2 d / (b s), which equals the balance at
    d = balance · b · s / 2.
    """
    return inputs["balance"] * DTYPE_BYTES[inputs["dtype"]] * s_trips / 2


def _exp_limit(inputs: Inputs, base: float = math.e) -> float:
    import numpy as np

    return math.log(float(np.finfo(inputs["dtype"]).max), base)


def _divides(inputs: Inputs) -> str | None:
    d_model, heads = inputs["d_model"], inputs["heads"]
    return None if d_model % heads == 0 else f"d_model {d_model} is not a multiple of {heads}"


COST_MENU = (
    Computation(
        "score_count",
        {"T": Param("length"), "unit": Param("unit", choices=tuple(COUNT_UNITS)), **SIZES},
        lambda i: _score_numbers(i) / COUNT_UNITS[i["unit"]],
        slips=(
            Slip(
                "that counts T numbers; the score matrix is T × T",
                lambda i: i["T"] * i["heads"] * i["layers"] / COUNT_UNITS[i["unit"]],
            ),
        ),
    ),
    Computation(
        "scores_memory",
        {
            "T": Param("length"),
            "dtype": Param("dtype"),
            "unit": Param("unit", choices=tuple(BYTE_UNITS)),
            **SIZES,
        },
        _memory,
        slips=(
            Slip(
                "that counts numbers, not bytes: multiply by the bytes per number",
                lambda i: _memory(i) / DTYPE_BYTES[i["dtype"]],
            ),
            Slip(
                "that uses powers of ten; here KiB, MiB and GiB are 2¹⁰, 2²⁰ and 2³⁰ bytes",
                _decimal_memory,
            ),
        ),
    ),
    Computation(
        "attention_flops",
        {
            "T": Param("length"),
            "d_k": Param("dim"),
            "unit": Param("unit", choices=tuple(FLOP_UNITS)),
            **SIZES,
        },
        lambda i: _flop_count(i) / FLOP_UNITS[i["unit"]],
        slips=(
            Slip(
                "that is half the count: a multiply-add is 2 FLOPs, and there are two matrix "
                "products (Q Kᵀ and A V)",
                lambda i: _flop_count(i) / FLOP_UNITS[i["unit"]] / 2,
            ),
        ),
    ),
    Computation(
        "attention_seconds",
        {"T": Param("length"), "d_k": Param("dim"), "peak_gflops": Param("count"), **SIZES},
        _seconds,
        slips=(
            Slip(
                "that is half the time: count 4 T² d_k FLOPs per head (two products, 2 FLOPs "
                "per multiply-add)",
                lambda i: _seconds(i) / 2,
            ),
        ),
    ),
    Computation(
        "qk_intensity",
        {
            "T": Param("length"),
            "d_k": Param("dim"),
            "dtype": Param("dtype"),
            # How often the T × T scores cross the memory bus: written and read back by the
            # softmax (2), or written once as some write-ups count it (1).
            "s_passes": Param("count", default=2),
        },
        lambda i: intensity(i, s_trips=i["s_passes"]),
        slips=(
            Slip(
                "that counts S once; this card counts its write and the softmax reading it back",
                lambda i: intensity(i, s_trips=1) if i["s_passes"] == 2 else None,
            ),
            Slip(
                "that also counts the softmax reading S back; this card counts S written once",
                lambda i: intensity(i, s_trips=2) if i["s_passes"] == 1 else None,
            ),
            Slip(
                "that is FLOPs per number; divide by the bytes per number",
                lambda i: intensity(i, s_trips=i["s_passes"], per_byte=False),
            ),
        ),
    ),
    Computation(
        "machine_balance",
        {"peak_gflops": Param("count"), "bandwidth_gbs": Param("count")},
        lambda i: i["peak_gflops"] / i["bandwidth_gbs"],
        slips=(
            Slip(
                "that is bytes per FLOP; the balance is peak FLOP/s over bytes/s",
                lambda i: i["bandwidth_gbs"] / i["peak_gflops"],
            ),
        ),
    ),
    Computation(
        "roofline_crossover",
        {"balance": Param("count"), "dtype": Param("dtype")},
        _crossover,
        slips=(
            Slip(
                "that counts S once; with its write and read-back the limit is d_k / 4 in float32",
                lambda i: _crossover(i, s_trips=1),
            ),
        ),
    ),
    Computation(
        "head_size",
        {"d_model": Param("count"), "heads": Param("count")},
        lambda i: i["d_model"] / i["heads"],
        _divides,
        slips=(
            Slip(
                "the heads split d_model between them; divide, do not multiply",
                lambda i: float(i["d_model"] * i["heads"]),
            ),
        ),
    ),
    Computation(
        "exp_overflow",
        {"dtype": Param("dtype")},
        _exp_limit,
        slips=(
            Slip(
                "that is a base-10 logarithm; exp needs the natural log of the largest value",
                lambda i: _exp_limit(i, 10.0),
            ),
        ),
    ),
)
