"""Computed cards: truths come from `attention_ref`, inputs may be drawn afresh per review."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import ValidationError

from attention_ref.reference import attention, attention_flops, stable_softmax
from engine.cards.computed import COMPUTATIONS, ComputedItem

SOFTMAX_ENTRY = """\
  - id: softmax-first
    kind: computed
    tags: [softmax]
    compute: softmax_entry
    inputs: {scores: [2, 1, 0.1], index: 1}
    vary: [scores]
    abs_tol: 0.01
    prompt: Compute the {index_ordinal} entry of softmax({scores}).
    hint: Exponentiate, then normalize.
    explanation: e² / (e² + e + e^0.1).
"""


def computed(**fields: object) -> ComputedItem:
    data: dict[str, object] = {"id": "c", "kind": "computed", "abs_tol": 0.01, **fields}
    return ComputedItem.model_validate(data)


ATTENTION_OUTPUT = {
    "compute": "attention_output_row",
    "inputs": {
        "Q": [[1, 0]],
        "K": [[1, 0], [0, 1], [1, 1]],
        "V": [[1, 2], [3, 4], [5, 6]],
        "row": 1,
    },
    "vary": ["Q", "K", "V"],
    "prompt": "Q = {Q}, K = {K}, V = {V}: output row {row}?",
}


def test_a_computed_item_loads_from_yaml_with_its_prompt_filled_in(load_bank) -> None:
    loaded = load_bank(SOFTMAX_ENTRY)
    assert loaded.problems == []
    (item,) = loaded.items
    assert isinstance(item, ComputedItem)
    assert item.prompt == "Compute the first entry of softmax([2, 1, 0.1])."
    assert item.answer_text() == "0.659"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"compute": "eval", "prompt": "p"}, "compute 'eval' is not one of"),
        ({"compute": "softmax", "prompt": "p"}, "softmax needs the input 'scores'"),
        (
            {"compute": "softmax", "inputs": {"scores": [1], "temp": 2}, "prompt": "p"},
            "softmax has no input 'temp'",
        ),
        (
            {"compute": "softmax", "inputs": {"scores": "[1, 2]"}, "prompt": "p"},
            "input 'scores' of softmax: expected a list",
        ),
        (
            {"compute": "softmax", "inputs": {"scores": [1, 2]}, "prompt": "softmax({s})"},
            "the prompt names {s}, which is not an input of softmax",
        ),
        (
            {"compute": "softmax_entry", "inputs": {"scores": [1, 2], "index": 3}, "prompt": "p"},
            "index 3 is past the 2 scores",
        ),
        (
            {
                "compute": "softmax_entry",
                "inputs": {"scores": [1, 2], "index": 1},
                "prompt": "p",
                "vary": ["index"],
            },
            "vary names 'index', which softmax_entry cannot draw",
        ),
        (
            {
                "compute": "attention_weight",
                "inputs": {"Q": [[1, 0]], "K": [[1, 0, 0]], "row": 1, "col": 1},
                "prompt": "p",
            },
            "Q and K need the same width d_k",
        ),
        (
            {
                "compute": "attention_output",
                "inputs": {"Q": [[1]], "K": [[1], [2]], "V": [[1]], "row": 1, "col": 1},
                "prompt": "p",
            },
            "K and V need the same number of rows",
        ),
        (
            {
                "compute": "scores_memory",
                "inputs": {"T": 8, "dtype": "int8", "unit": "MiB"},
                "prompt": "p",
            },
            "expected one of float16, float32, float64",
        ),
    ],
)
def test_malformed_computed_items_are_rejected_with_a_clear_message(
    fields: dict[str, object], message: str
) -> None:
    with pytest.raises(ValidationError) as info:
        computed(**fields)
    assert message in str(info.value)


def test_a_computed_item_needs_a_tolerance() -> None:
    with pytest.raises(ValidationError, match="needs abs_tol or rel_tol"):
        ComputedItem.model_validate(
            {
                "id": "c",
                "kind": "computed",
                "compute": "score_std",
                "inputs": {"d_k": 4},
                "prompt": "p",
            }
        )


def test_lint_reports_a_bad_computed_item_with_file_and_line(load_bank) -> None:
    loaded = load_bank(SOFTMAX_ENTRY.replace("compute: softmax_entry", "compute: softmax_entri"))
    assert loaded.items == []
    assert any(
        p.startswith("quizzes/demo.yaml:7:") and "softmax_entri" in p for p in loaded.problems
    )


def test_right_and_wrong_answers_are_graded_in_the_worker(load_bank) -> None:
    (item,) = load_bank(SOFTMAX_ENTRY).items
    assert item.grade("0.659").correct
    assert item.grade("≈ 0.66").correct
    wrong = item.grade("0.5")
    assert wrong.valid and not wrong.correct
    assert not item.grade("what?").valid


def test_a_classic_slip_is_named_whatever_the_inputs() -> None:
    item = computed(**ATTENTION_OUTPUT)
    for seed in range(4):
        review = item.at_seed(seed)
        q, k, v = (np.asarray(review.inputs[n], float) for n in "QKV")
        unscaled = stable_softmax(q @ k.T) @ v
        answer = "[" + ", ".join(f"{x:.6f}" for x in unscaled[0]) + "]"
        verdict = review.grade(answer)
        if not np.allclose(unscaled, attention(q, k, v), atol=0.01):
            assert not verdict.correct
            assert "leaves out the scaling" in verdict.feedback


def test_the_number_of_bytes_slip_is_named() -> None:
    item = computed(
        compute="scores_memory",
        inputs={"T": 2048, "dtype": "float32", "unit": "MiB"},
        prompt="T = {T} in {dtype} ({dtype_bytes} bytes)?",
    )
    assert item.prompt == "T = 2048 in float32 (4 bytes)?"
    assert item.grade("16").correct
    assert "counts numbers, not bytes" in item.grade("4").feedback


def test_a_computed_item_survives_the_worker_round_trip() -> None:
    item = computed(**ATTENTION_OUTPUT)
    for review in (item, item.at_seed(3)):
        again = ComputedItem.model_validate(review.model_dump(mode="json"))
        assert again == review
        assert again.prompt == review.prompt
        assert again.answer_text() == review.answer_text()


def test_seed_zero_is_the_banks_example_and_later_seeds_are_reproducible_and_differ() -> None:
    item = computed(**ATTENTION_OUTPUT)
    assert item.at_seed(0) is item
    assert item.at_seed(0).prompt == item.prompt
    prompts = [item.at_seed(seed).prompt for seed in range(1, 9)]
    assert prompts == [item.at_seed(seed).prompt for seed in range(1, 9)]
    assert len(set(prompts)) == len(prompts)
    assert item.prompt not in prompts
    other = computed(**{**ATTENTION_OUTPUT}, id="other-id")
    assert other.at_seed(1).prompt != item.at_seed(1).prompt  # the id is part of the seed


def test_drawn_inputs_keep_the_shapes_of_the_banks_inputs() -> None:
    item = computed(**ATTENTION_OUTPUT)
    for seed in range(1, 20):
        drawn = item.at_seed(seed).inputs
        assert [np.shape(drawn[n]) for n in "QKV"] == [(1, 2), (3, 2), (3, 2)]
        assert drawn["row"] == 1


def test_grading_and_the_answer_follow_the_seed() -> None:
    item = computed(**ATTENTION_OUTPUT)
    for seed in range(1, 6):
        review = item.at_seed(seed)
        assert review.grade(review.answer_text()).correct
        truth = review.truth()
        assert isinstance(truth, list)
        if not np.allclose(truth, [3, 4], atol=0.02):
            assert not review.grade("[3, 4]").correct


@pytest.mark.parametrize("seed", range(6))
def test_attention_truths_equal_the_reference_kernel(seed: int) -> None:
    base = {
        "Q": [[1, 0], [0, 1], [1, 1]],
        "K": [[1, 0], [0, 1], [1, 1]],
        "V": [[1, 0], [0, 1], [2, 2]],
    }
    for causal in (False, True):
        inputs = {**base, "causal": causal}
        weight = computed(
            compute="attention_weight",
            inputs={"Q": base["Q"], "K": base["K"], "causal": causal, "row": 3, "col": 2},
            vary=["Q", "K"],
            prompt="p",
        ).at_seed(seed)
        out = computed(
            compute="attention_output",
            inputs={**inputs, "row": 2, "col": 2},
            vary=["Q", "K", "V"],
            prompt="p",
        ).at_seed(seed)
        _, weights = attention(
            weight.inputs["Q"],
            weight.inputs["K"],
            np.zeros((3, 1)),
            causal=causal,
            return_weights=True,
        )
        assert weight.truth() == pytest.approx(weights[2, 1])
        reference = attention(out.inputs["Q"], out.inputs["K"], out.inputs["V"], causal=causal)
        assert out.truth() == pytest.approx(reference[1, 1])
    scores = computed(
        compute="softmax", inputs={"scores": [2, 1, 0.1]}, vary=["scores"], prompt="p"
    ).at_seed(seed)
    assert scores.truth() == pytest.approx(stable_softmax(scores.inputs["scores"]).tolist())


def test_cost_truths_follow_the_reference_counts() -> None:
    flops = computed(
        compute="attention_flops",
        inputs={"T": 2048, "d_k": 64, "unit": "GFLOP", "heads": 16, "layers": 24},
        prompt="p",
    )
    assert flops.truth() == pytest.approx(attention_flops(2048, 2048, 64) * 384 / 1e9)
    assert flops.truth() == pytest.approx(412.3, abs=0.1)
    memory = computed(
        compute="scores_memory",
        inputs={"T": 2048, "dtype": "float32", "unit": "GiB", "heads": 16, "layers": 24},
        prompt="p",
    )
    assert memory.truth() == pytest.approx(6.0)
    intensity = computed(
        compute="qk_intensity", inputs={"T": 2048, "d_k": 64, "dtype": "float32"}, prompt="p"
    )
    assert intensity.truth() == pytest.approx(2048 * 64 / (4 * (64 + 2048)))
    assert computed(compute="score_std", inputs={"d_k": 512}, prompt="p").truth() == pytest.approx(
        22.627, abs=1e-3
    )
    assert computed(
        compute="exp_overflow", inputs={"dtype": "float32"}, prompt="p"
    ).truth() == pytest.approx(88.72, abs=0.01)


def test_every_computation_on_the_menu_draws_reproducibly() -> None:
    rng_a, rng_b = np.random.default_rng(7), np.random.default_rng(7)
    for computation in COMPUTATIONS.values():
        example = {"scores": [1, 2], "Q": [[1, 0]], "K": [[1, 0]], "V": [[1]], "d_k": 8}
        example |= {"T": 256, "dtype": "float32", "upstream": [1, 0], "weights": [[1.0]]}
        inputs = {k: v for k, v in example.items() if k in computation.params}
        names = computation.drawable()
        assert computation.draw(rng_a, inputs, names) == computation.draw(rng_b, inputs, names)


def test_lint_flags_a_stated_mistake_that_is_the_right_answer(load_bank) -> None:
    loaded = load_bank(
        SOFTMAX_ENTRY
        + "    mistakes:\n      - answer: '0.66'\n        message: not really a mistake\n"
    )
    assert any("the mistake '0.66' is within the tolerance" in p for p in loaded.problems)


SCORE_ROW = {
    "compute": "score_row",
    "inputs": {"Q": [[1, 0], [0, 1]], "K": [[1, 0], [1, 1], [0, 1]], "row": 1},
    "vary": ["Q", "K"],
    "prompt": "Q = {Q}, K = {K}: row {row} of Q Kᵀ?",
}


@pytest.mark.parametrize("spec", [SCORE_ROW, ATTENTION_OUTPUT], ids=["scores", "output"])
def test_drawn_inputs_have_no_row_of_zeros_and_no_answer_of_zeros(spec) -> None:
    item = computed(**spec)
    for seed in range(1, 300):
        drawn = item.at_seed(seed)
        for name in spec["vary"]:  # type: ignore[attr-defined]
            assert all(any(row) for row in drawn.inputs[name]), (seed, name, drawn.inputs)
        assert any(abs(x) > 1e-12 for x in np.ravel(drawn.truth())), (seed, drawn.inputs)


def test_an_explanation_with_placeholders_speaks_of_the_numbers_drawn() -> None:
    item = computed(**SCORE_ROW, explanation="Row {row}: query {row} of {Q} against each of {K}.")
    drawn = item.at_seed(5)
    assert drawn.inputs["Q"] != item.inputs["Q"]
    assert str(drawn.inputs["Q"]).replace(" ", "") in drawn.explanation.replace(" ", "")  # type: ignore[union-attr]
    assert (
        item.explanation
        == "Row 1: query 1 of [[1, 0], [0, 1]] against each of [[1, 0], [1, 1], [0, 1]]."
    )


def test_an_explanation_of_the_banks_example_says_so_when_others_are_drawn() -> None:
    item = computed(**SCORE_ROW, explanation="Query 1 = [1, 0] scores 1, 1 and 0.")
    assert item.explanation == "Query 1 = [1, 0] scores 1, 1 and 0."  # the bank's own numbers
    drawn = item.at_seed(2)
    assert drawn.explanation is not None
    assert "Worked with the bank's example, Q = [[1, 0], [0, 1]]" in drawn.explanation


def test_the_shipped_varying_items_explain_the_numbers_shown(store_home) -> None:
    from engine.bank.catalog import open_set

    qset = open_set("15", store_home)
    for item_id in ("scores-example-row", "weights-4096-tokens"):
        item = qset.item(item_id)
        assert isinstance(item, ComputedItem)
        for seed in (1, 2, 3):
            drawn = item.at_seed(seed)
            assert drawn.explanation is not None and "bank's example" not in drawn.explanation
            for name in drawn.vary or item.vary:
                shown = str(drawn.inputs[name]).replace(" ", "")
                assert shown in drawn.explanation.replace(" ", "").replace("\n", ""), (
                    item_id,
                    seed,
                )
