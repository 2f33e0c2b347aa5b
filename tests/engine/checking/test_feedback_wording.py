"""What the learner is told about any answer reads as one clean message, and `check --json`
always answers with JSON.

Over hostile and odd answers (random text, maths-shaped text, LaTeX, NumPy spellings, chains,
huge numbers, stray surrogates) to items of several kinds of set 15, graded exactly as a session
grades them: the feedback never says the same thing twice ("could not read this · could not
read this: ..."), never shows a placeholder (`name=...`, `{answer}`, `None`), and is never empty
for an answer that is not correct.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.bank.catalog import open_set
from engine.cards.base import Item
from engine.cli import main
from engine.ui.describe import verdict_line

pytestmark = pytest.mark.slow

# One item of each typed kind, and items whose answers are read as chains, sums and roundings.
ITEMS = (
    "attention-equation",  # expression, matrices
    "stable-softmax-denominator",  # expression, a sum over a family
    "causal-keys-seen",  # expression, integers
    "std-512",  # number with a precision
    "roofline-crossover",  # number
    "machine-balance",  # number with a unit
    "shape-scores",  # shape
    "softmax-2-1-01-vector",  # vector
    "score-std-drill",  # computed
    "cloze-five-lines-transpose",  # cloze over code
)
ODD_PIECES = (
    "\\sqrt{512} \\approx 22.6", "Σ_k exp(s_k − m)", "\\sum_{j=1}^{T}", "≈", "= =", "→", "(",
    ")", "{", "}", "np.sqrt(", ".T", "K'", "^", "_", "e^{", "8 (√64)", "9" * 80, "1e999", "0/0",
    "\ud800", "name=...", "{answer}", "could not read this", " ", "\\frac{", "=", "MiB", "%",
    "Var(q·k) =", "softmax(", "axis=-1", "[[1, 2], [3]]", "T_q × T_k", "∂L/∂Q", "\\", "\x00",
)  # fmt: skip
ANSWERS = st.one_of(
    st.text(max_size=50),
    st.lists(st.sampled_from(ODD_PIECES), min_size=1, max_size=5).map(" ".join),
    st.lists(st.sampled_from(ODD_PIECES), min_size=1, max_size=4).map("".join),
)
PLACEHOLDER = re.compile(r"\w+=\.\.\.|\{[a-z_]+\}|\bNone\b|<[a-z_]+>")


@pytest.fixture(scope="module")
def items(tmp_path_factory: pytest.TempPathFactory) -> list[Item]:
    question_set = open_set("15", tmp_path_factory.mktemp("store"))
    by_id = {item.id: item for item in question_set.items}
    return [by_id[item_id] for item_id in ITEMS]


def repeated_clause(feedback: str, answer: str) -> str | None:
    """A clause of the feedback said twice, that the learner's own text does not explain."""
    # Clauses are joined by ` · `, `: ` and `; `; a `·` inside a formula (`j·s_j`) joins none.
    clauses = [c.strip().lower() for c in re.split(r" · |: |; |\n", feedback) if c.strip()]
    for clause in set(clauses):
        if len(clause) > 3 and clauses.count(clause) > 1 and clause not in answer.lower():
            return clause
    return None


@settings(
    deadline=None, max_examples=250, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(index=st.integers(0, len(ITEMS) - 1), answer=ANSWERS)
def test_feedback_never_repeats_itself_nor_shows_a_placeholder(
    items: list[Item],
    index: int,
    answer: str,
) -> None:
    verdict = items[index].grade_in_process(answer)
    assert verdict.correct or verdict.feedback.strip(), (ITEMS[index], answer)
    # The feedback, and the line a session shows for it.
    for said in (verdict.feedback, verdict_line(verdict)):
        assert repeated_clause(said, answer) is None, (ITEMS[index], answer, said)
        leftover = [m for m in PLACEHOLDER.findall(said) if m not in answer]
        assert not leftover, (ITEMS[index], answer, said)


def test_the_wording_checks_catch_what_they_look_for() -> None:
    assert repeated_clause("could not read this · could not read this: x", "x") is not None
    assert repeated_clause("could not read this: `x` is not a known name", "x") is None
    assert PLACEHOLDER.search("the step `name=...` does not hold")
    assert not PLACEHOLDER.search("`σ = 22.6` names the standard deviation")


@pytest.mark.parametrize(
    "answer",
    [
        "\\sqrt{512} \\approx 22.6",
        "√512 ≈ 23.6",
        "9" * 5000,
        "\ud800",
        "could not read this",
        "name=...",
        "Σ_k exp(s_k − m) = = ",
        "",
    ],
)
@pytest.mark.parametrize("item_id", ["std-512", "stable-softmax-denominator", "shape-scores"])
def test_check_json_always_prints_one_json_verdict(
    item_id: str, answer: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["check", "15", item_id, "--answer", answer, "--json"])
    out = capsys.readouterr().out
    assert code in (0, 1, 2), out
    if code == 2:  # bad input to the command itself (an empty answer): one line on stderr
        return
    verdict = json.loads(out)
    assert verdict["item"] == item_id
    assert isinstance(verdict["correct"], bool) and isinstance(verdict["valid"], bool)
    assert repeated_clause(verdict["feedback"], answer) is None, verdict
