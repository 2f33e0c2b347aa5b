"""Every exercise of set 15 is sound: its reference solution passes the grader and every named
mistake is caught, as that mistake, by the buggy variant the bank gives for it (lint's check)."""

from __future__ import annotations

import pytest

from attention_ref.exercises import BATTERIES, cases_for
from engine.cards.exercise import ExerciseItem

REQUIRED = {
    "stable-softmax": "softmax",
    "attention": "attention",
    "causal-attention": "causal_attention",
    "multi-head-attention": "multi_head_attention",
    "attention-backward": "attention_backward",
    "tiled-attention": "tiled_attention",
}


def test_set_15_has_the_exercises_the_contract_names(exercises: dict[str, ExerciseItem]) -> None:
    assert {i: e.function for i, e in exercises.items()} == REQUIRED


@pytest.mark.slow  # every variant of every exercise graded in the sandbox
@pytest.mark.parametrize("exercise_id", sorted(REQUIRED))
def test_the_solution_passes_and_every_variant_is_named_as_its_mistake(
    exercises: dict[str, ExerciseItem], exercise_id: str
) -> None:
    item = exercises[exercise_id]
    assert len(item.mistakes) >= 3, "each exercise names the mistakes people really make"
    assert item.check_bank() == []


@pytest.mark.parametrize("battery", sorted(BATTERIES))
def test_cases_are_drawn_afresh_for_every_seed(battery: str) -> None:
    first, second = cases_for(battery, 1), cases_for(battery, 2)
    assert [c.name for c in first] == [c.name for c in second]
    differ = [
        a.name
        for a, b in zip(first, second, strict=True)
        if any(
            getattr(x, "shape", None) is not None and not (x == y).all()
            for x, y in zip(a.args, b.args, strict=True)
        )
    ]
    assert differ == [c.name for c in first]
