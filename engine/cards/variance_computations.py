"""The catalogue's variance computations: the spread of raw scores and of one product term.

`score_std` is √d_k, the standard deviation of q · k for independent N(0, 1) components.
`normal_product` works out a moment of x · y for independent x, y ~ N(0, 1) with `sympy.stats`
(imported only when a card asks), so a bank's "Var(x y) = 1" is derived, not typed.
"""

from __future__ import annotations

import math

from engine.cards.computation import Computation, Inputs, Param, Slip

MOMENTS = ("mean", "second_moment", "variance")


def normal_product(inputs: Inputs) -> float:
    """E[x y], E[(x y)²] or Var(x y) for independent standard normals x and y."""
    from sympy.stats import E, Normal, variance

    x, y = Normal("x", 0, 1), Normal("y", 0, 1)
    value = {
        "mean": lambda: E(x * y),
        "second_moment": lambda: E((x * y) ** 2),
        "variance": lambda: variance(x * y),
    }[inputs["moment"]]()
    return float(value)


VARIANCE_MENU = (
    Computation(
        "score_std",
        {"d_k": Param("dim")},
        lambda i: math.sqrt(i["d_k"]),
        slips=(
            Slip(
                "that is the variance d_k; the standard deviation is its square root",
                lambda i: float(i["d_k"]),
            ),
        ),
    ),
    Computation(
        "normal_product",
        {"moment": Param("unit", choices=MOMENTS)},
        normal_product,
    ),
)
