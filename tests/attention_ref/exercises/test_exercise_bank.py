"""Every exercise of set 15 is sound: it names the mistakes people really make, and its cases
are drawn afresh. That its reference solution passes the grader and every named mistake is
caught, as that mistake, by the buggy variant the bank gives for it is lint's check
(`ExerciseItem.check_bank`), run on every shipped exercise, in the sandbox, by
tests/engine/bank/test_lint.py::test_the_shipped_banks_lint_clean_and_without_warnings: once
per test run, not twice."""

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


@pytest.mark.parametrize("exercise_id", sorted(REQUIRED))
def test_each_exercise_names_the_mistakes_people_make(
    exercises: dict[str, ExerciseItem], exercise_id: str
) -> None:
    item = exercises[exercise_id]
    assert len(item.mistakes) >= 3, "each exercise names the mistakes people really make"
    # Each mistake comes with the buggy variant that lint grades (see the module's docstring).
    assert all(m.variant.strip() and m.variant != item.solution for m in item.mistakes)


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


@pytest.mark.parametrize("battery", sorted(BATTERIES))
def test_the_last_case_repeats_the_first_sizes_with_new_values(battery: str) -> None:
    # A function that remembers its output by the inputs' shapes passes every case of new
    # sizes; the repeat, called after the first case, catches it.
    cases = cases_for(battery, 7)
    first, again = cases[0], cases[-1]
    assert again.name == f"{first.name}-new-values"
    arrays = [(a, b) for a, b in zip(first.args, again.args, strict=True) if hasattr(a, "shape")]
    assert arrays and all(a.shape == b.shape and not (a == b).all() for a, b in arrays)
    assert not all((x == y).all() for x, y in zip(first.expected, again.expected, strict=True))
