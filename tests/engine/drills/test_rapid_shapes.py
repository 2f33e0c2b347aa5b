"""The shape algebra behind the rapid-fire drill, and the template checks built on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.drills.rapid.file import RapidTemplate, read_rapid_drill, template_problems
from engine.drills.rapid.shapes import (
    Dim,
    ShapeAlgebraError,
    derive_shape,
    parse_shape_spec,
    shape_text,
)

NAMES = ("a", "b", "c", "m", "n", "p")


def shape(expression: str, **tensors: list[str]) -> str:
    shapes = {name: parse_shape_spec(dims) for name, dims in tensors.items()}
    variables = {d for dims in tensors.values() for dim in dims for d in Dim.parse(dim).names}
    return shape_text(derive_shape(expression, shapes, variables))


def test_attention_output_has_a_row_per_query_and_the_values_width() -> None:
    got = shape("softmax(Q @ K.T / sqrt(a)) @ V", Q=["n", "a"], K=["m", "a"], V=["m", "c"])
    assert got == "(n, c)"


def test_batched_scores_keep_the_batch_axis_and_mT_swaps_only_the_last_two() -> None:
    assert shape("Q @ K.mT", Q=["b", "n", "a"], K=["b", "m", "a"]) == "(b, n, m)"


def test_a_matrix_broadcasts_over_the_batch_of_the_other_side() -> None:
    assert shape("X @ W", X=["b", "t", "d"], W=["d", "a"]) == "(b, t, a)"


def test_splitting_heads_then_merging_them_gives_the_shape_back() -> None:
    tensors = {"X": ["b", "t", "h*e"]}
    assert shape("split_heads(X, h)", **tensors) == "(b, h, t, e)"
    assert shape("merge_heads(split_heads(X, h))", **tensors) == "(b, t, e*h)"


def test_a_gradient_has_the_shape_of_what_it_is_taken_with_respect_to() -> None:
    assert shape("grad(Q)", Q=["n", "a"]) == "(n, a)"


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("Q @ K", "inner dimensions a and m differ"),
        ("Q + K", "the shapes differ"),
        ("split_heads(Q, m)", "not a multiple of m"),
        ("B.T", ".T of a 3-D array"),
        ("__import__('os')", "not in the shape language"),
        ("Q[0]", "not part of the shape language"),
        ("sqrt(a)", "is a scalar"),
        ("Q @", "cannot read"),
    ],
)
def test_shapes_that_do_not_fit_are_explained(expression: str, message: str) -> None:
    tensors = {"Q": ["n", "a"], "K": ["m", "a"], "B": ["b", "n", "a"]}
    with pytest.raises(ShapeAlgebraError, match=message):
        shape(expression, **tensors)


def template(**changes: object) -> RapidTemplate:
    fields: dict[str, object] = {
        "id": "scores",
        "dims": {"n": (3, 100), "m": (3, 100), "a": (8, 64)},
        "tensors": {"Q": ("n", "a"), "K": ("m", "a")},
        "prompt": "Q is {Q} and K is {K}. Shape of Q Kᵀ?",
        "ask": "Q @ K.T",
        "answer": ("n", "m"),
        "mistakes": ({"answer": ("m", "n"), "message": "swapped"},),
    }
    return RapidTemplate.model_validate({**fields, **changes})


def test_a_sound_template_has_no_problems() -> None:
    assert template_problems(template(), NAMES) == []


def test_a_stated_answer_that_does_not_follow_is_named_with_the_derived_shape() -> None:
    problems = template_problems(template(answer=("n", "a")), NAMES)
    assert problems == ["the answer (n, a) is not the shape of Q @ K.T, which is (n, m)"]


def test_a_holds_equation_that_fails_is_reported() -> None:
    problems = template_problems(template(holds=("Q @ K.T = Q",)), NAMES)
    assert problems == ["holds: Q @ K.T = Q fails, (n, m) against (n, a)"]


def test_unknown_placeholders_variables_and_a_mistake_equal_to_the_answer() -> None:
    broken = template(
        prompt="Q is {Q}, V is {V}",
        tensors={"Q": ("n", "a"), "K": ("m", "z")},
        mistakes=({"answer": ("n", "m"), "message": "oops"},),
    )
    problems = template_problems(broken, NAMES)
    assert "z not among its dims" in problems
    assert "the prompt has placeholders V that are no tensor or dimension" in problems
    assert "the mistake (n, m) is the answer itself" in problems


def test_a_broken_template_in_a_file_is_reported_at_its_line(tmp_path: Path) -> None:
    shipped = Path(__file__).resolve().parents[3] / "drills" / "15-rapid.yaml"
    text = shipped.read_text(encoding="utf-8").replace("ask: X @ W\n", "ask: W @ X\n", 1)
    path = tmp_path / "15-rapid.yaml"
    path.write_text(text, encoding="utf-8")
    line = text[: text.index("- id: projection")].count("\n") + 1
    drill, problems = read_rapid_drill(path, "mine.yaml", "15")
    assert problems == [
        f"mine.yaml:{line}: template 'projection': (d, a) @ (t, d): inner dimensions a and t differ"
    ]
    assert drill is not None
