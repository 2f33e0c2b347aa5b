"""Set 15 covers every topic of the seed pages, and every item teaches as well as asks."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from engine.bank.catalog import bank_roots, open_set, set_files
from engine.bank.model import QuestionSet
from engine.cards.cloze import ClozeItem
from engine.cards.computed import ComputedItem

REQUIRED_IDS = {
    "attention-equation", "mean-dot", "var-dot", "std-dot", "var-scaled", "std-512",
    "shape-scores", "shape-output", "softmax-grad", "flops-total", "intensity",
}  # fmt: skip
TOPICS = (
    "equation", "shapes", "variance", "softmax", "temperature", "stability", "gradients",
    "complexity", "memory", "roofline", "masking", "implementation", "pitfalls", "exercises",
)  # fmt: skip
# Ids that learners' review histories refer to (the 130 items of the bank before the content
# audit of issue 16): each is still an item or is retired with successors that take its history.
EARLIER_IDS = [
    "attention-equation",
    "why-dot-product",
    "qkv-roles",
    "v-outside-softmax",
    "self-vs-cross",
    "kv-same-length",
    "shape-scores",
    "shape-output",
    "shape-k-transpose",
    "shape-multihead-weights",
    "shape-grad-v",
    "mean-dot",
    "var-one-term",
    "var-dot",
    "std-dot",
    "std-64",
    "std-512",
    "var-scaled",
    "var-scaled-by-c",
    "why-scale-sqrt-dk",
    "softmax-2-1-01-first",
    "softmax-2-1-01-last",
    "softmax-2-1-01-vector",
    "softmax-0-0-10",
    "softmax-axis",
    "saturation-gradients",
    "softmax-grad",
    "jacobian-diagonal",
    "max-subtraction-exact",
    "fp32-exp-limit",
    "fp64-exp-limit",
    "code-naive-softmax",
    "numpy-five-lines",
    "code-wrong-scale",
    "code-wrong-axis",
    "code-missing-transpose",
    "why-not-divide-by-max",
    "identity-weight",
    "identity-output",
    "exercise-q10-weight",
    "identity-output-row",
    "exercise-q10-output",
    "causal-mask-where",
    "masked-weight",
    "causal-first-row",
    "fully-masked-row",
    "temperature-limits",
    "temperature-of-scaling",
    "sharper-attention",
    "grad-q",
    "grad-k",
    "backward-needs-a",
    "scores-memory-mib",
    "scores-memory-model",
    "flops-qk",
    "flops-total",
    "gflop-layer-head",
    "intensity",
    "intensity-limit",
    "roofline-crossover",
    "roofline-small-head",
    "softmax-memory-bound",
    "std-2",
    "std-16",
    "std-128",
    "std-256",
    "score-std-drill",
    "softmax-drill",
    "softmax-uniform",
    "saturation-x5",
    "jacobian-diagonal-healthy",
    "jacobian-diagonal-peaked",
    "attention-weight-drill",
    "attention-output-drill",
    "causal-attention-drill",
    "scores-memory-drill",
    "flops-small-model",
    "flops-model-total",
    "intensity-2048-64",
    "intensity-drill",
    "cloze-five-lines-transpose",
    "cloze-five-lines-scale",
    "cloze-five-lines-max-axis",
    "cloze-five-lines-keepdims",
    "cloze-five-lines-exp",
    "cloze-five-lines-values",
    "cloze-stable-softmax",
    "cloze-equation-scores",
    "cloze-equation-scale",
    "cloze-softmax-definition",
    "cloze-variance-scaled",
    "cloze-softmax-gradient",
    "cloze-grad-v",
    "cloze-intensity-bytes",
    "cloze-causal-mask",
    "why-softmax",
    "shape-batched-output",
    "shape-multihead-output",
    "shape-grad-q",
    "grad-weights",
    "softmax-offdiagonal",
    "softmax-properties",
    "when-scaling-matters",
    "temperature-half",
    "mask-before-softmax",
    "causal-keys-seen",
    "boolean-vs-additive-mask",
    "forgot-softmax",
    "machine-balance",
    "roofline-typical-head",
    "flash-attention-bytes",
    "dot-product-angle",
    "score-matrix-rows",
    "scores-example-row",
    "shape-output-numbers",
    "second-moment-product",
    "softmax-unscaled-five",
    "softmax-scaled-five",
    "softmax-1-2-3",
    "softmax-sums-to-one",
    "max-trick-denominator",
    "weighted-values-row",
    "cloze-output-row",
    "weights-4096-tokens",
    "flops-qk-general",
    "head-size-from-model",
    "forward-seconds",
    "batched-transpose",
    "softmax-backward-row",
    "temperature-sweep",
]
# Retired ids and the items that took them over (split into atomic cards, or merged into the
# best of near-duplicates).
RETIRED = {
    "qkv-roles": ("qkv-query", "qkv-key", "qkv-value"),
    "why-dot-product": ("why-dot-product-cost", "why-dot-product-quality"),
    "why-scale-sqrt-dk": ("scale-prevents-saturation", "scale-why-sqrt", "saturation-gradients"),
    "why-not-divide-by-max": ("max-scale-data-dependent", "max-scale-sign"),
    "self-vs-cross": ("self-attention-inputs", "cross-attention-inputs", "cross-attention-use"),
    "max-subtraction-exact": ("max-shift-exact", "max-shift-no-overflow"),
    "softmax-sums-to-one": ("softmax-sum-proof", "softmax-entries-between"),
    "backward-needs-a": ("backward-keeps-a", "flash-recomputes-a"),
    "boolean-vs-additive-mask": ("mask-keep-to-additive", "mask-convention-mixup"),
    "std-2": ("score-std-drill",),
    "std-16": ("score-std-drill",),
    "std-64": ("score-std-drill",),
    "std-128": ("score-std-drill",),
    "std-256": ("score-std-drill",),
    "temperature-of-scaling": ("score-std-drill",),
    "second-moment-product": ("var-one-term",),
    "softmax-2-1-01-first": ("softmax-2-1-01-vector",),
    "softmax-2-1-01-last": ("softmax-2-1-01-vector",),
    "sharper-attention": ("temperature-half",),
}


@pytest.fixture(scope="module")
def set_15(tmp_path_factory: pytest.TempPathFactory) -> QuestionSet:
    return open_set("15", tmp_path_factory.mktemp("store"))


def test_the_bank_is_large_enough(set_15: QuestionSet) -> None:
    assert len(set_15.items) >= 90


def test_required_and_earlier_ids_are_all_present_or_mapped(set_15: QuestionSet) -> None:
    assert len(EARLIER_IDS) == len(set(EARLIER_IDS)) == 130
    assert set(set_15.ids) >= REQUIRED_IDS
    assert set(EARLIER_IDS) - set(set_15.ids) == set(RETIRED)
    assert {old: set(new) for old, new in set_15.successors.items()} == {
        old: set(new) for old, new in RETIRED.items()
    }
    assert {new for news in RETIRED.values() for new in news} <= set(set_15.ids)


@pytest.mark.parametrize("topic", TOPICS)
def test_every_topic_has_at_least_three_items(set_15: QuestionSet, topic: str) -> None:
    counts = Counter(tag for item in set_15.items for tag in item.tags)
    assert counts[topic] >= 3


def test_every_item_has_a_hint_and_an_explanation(set_15: QuestionSet) -> None:
    missing = [i.id for i in set_15.items if not (i.hint_steps() and i.explanation)]
    assert missing == []


def test_the_new_kinds_are_used_and_their_answers_check(set_15: QuestionSet) -> None:
    computed = [i for i in set_15.items if isinstance(i, ComputedItem)]
    clozes = [i for i in set_15.items if isinstance(i, ClozeItem)]
    assert len(computed) >= 10 and len(clozes) >= 10
    assert any(i.vary for i in computed)
    for item in computed + clozes:
        assert item.check_bank_in_process() == [], item.id


def test_the_five_line_implementation_is_blanked_one_piece_per_card(set_15: QuestionSet) -> None:
    five = [i for i in set_15.items if isinstance(i, ClozeItem) and "def attention" in i.text]
    assert len(five) >= 5
    assert len({i.asked().answer for i in five}) == len(five)  # each card asks another piece


def test_every_drawn_review_is_answerable_with_its_shown_answer(set_15: QuestionSet) -> None:
    for item in set_15.items:
        if isinstance(item, ComputedItem) and item.vary:
            for seed in (1, 2, 7):
                review = item.at_seed(seed)
                assert "{" not in review.prompt, item.id
                assert review.grade_in_process(review.answer_text()).correct, (item.id, seed)


def test_the_shipped_bank_file_is_where_the_set_comes_from(tmp_path: Path) -> None:
    found = set_files("15", bank_roots(tmp_path))
    assert [shown for _, shown in found] == ["quizzes/15.yaml", "quizzes/15/exercises.yaml"]


# Cards the audit found giving each other away: a session never shows both.
GIVEAWAY_PAIRS = [
    ("identity-weight", "identity-output"),
    ("identity-weight", "identity-output-row"),
    ("exercise-q10-weight", "exercise-q10-output"),
    ("scores-memory-mib", "scores-memory-model"),
    ("intensity", "intensity-limit"),
    ("intensity-limit", "roofline-crossover"),
    ("machine-balance", "roofline-crossover"),
    ("flops-qk", "flops-total"),
    ("gflop-layer-head", "flops-model-total"),
    ("shape-grad-v", "cloze-grad-v"),
    ("shape-grad-q", "grad-q"),
    ("shape-scores", "shape-k-transpose"),
    ("jacobian-diagonal", "jacobian-diagonal-healthy"),
    ("temperature-half", "temperature-sweep"),
    ("std-512", "score-std-drill"),
]


@pytest.mark.parametrize(("one", "other"), GIVEAWAY_PAIRS)
def test_cards_that_would_give_each_other_away_are_siblings(
    set_15: QuestionSet, one: str, other: str
) -> None:
    assert other in set_15.siblings.get(one, frozenset())


def test_no_prompt_quotes_the_answer_of_a_sibling(set_15: QuestionSet) -> None:
    # The rewording half of the fix: the prompts themselves no longer carry the other answer.
    quoted = {
        "identity-output": "0.471",
        "identity-output-row": "0.471",
        "exercise-q10-output": "0.401",
        "scores-memory-model": "16 MiB",
        "intensity-limit": "4 (d_k + T)",
        "roofline-crossover": "d_k / 4",
        "gflop-layer-head": "4 T² d_k",
        "flops-small-model": "4 T² d_k",
        "flops-model-total": "4 T² d_k",
        "forward-seconds": "4 T² d_k",
        "shape-grad-v": "Aᵀ",
        "shape-grad-q": "G K",
    }
    for item_id, text in quoted.items():
        item = set_15.item(item_id)
        assert item is not None and text not in item.prompt, item_id
