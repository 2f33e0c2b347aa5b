"""The fixed menu of computations a card may name, by name.

Nothing an author writes is evaluated: a bank's `compute: softmax_entry` is a key of
`COMPUTATIONS`. The entries live with their kind of mathematics: softmax and attention in
`attention_computations`, memory, FLOPs and the roofline in `cost_computations`, the variance
facts in `variance_computations`.
"""

from __future__ import annotations

from engine.cards.attention_computations import ATTENTION_MENU
from engine.cards.computation import Computation
from engine.cards.cost_computations import COST_MENU
from engine.cards.variance_computations import VARIANCE_MENU

COMPUTATIONS: dict[str, Computation] = {
    c.name: c for c in (*ATTENTION_MENU, *COST_MENU, *VARIANCE_MENU)
}


def computation_named(name: str) -> Computation:
    """The computation called `name`; ValueError listing the menu if there is none."""
    found = COMPUTATIONS.get(name)
    if found is None:
        raise ValueError(f"compute {name!r} is not one of: {', '.join(sorted(COMPUTATIONS))}")
    return found
