"""Derivation steps checked in the worker: the in-process verdicts, carried as plain JSON."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.checking import derivation
from engine.checking.derivation import Assumptions, BrokenLink, StepVerdict
from engine.checking.derivation import bounded as bounded_derivation
from engine.checking.worker.bounded import BoundedChecker
from engine.checking.worker.main import answer_request
from engine.checking.worker.wire import (
    StepRequest,
    request_from_data,
    request_to_data,
    step_verdict_from_data,
    step_verdict_to_data,
)
from engine.errors import BankError

SCORES = Assumptions(normal_vectors=("q", "k"), aliases={"d_k": ("d", "dk", "d_{k}")})
SOFTMAX = Assumptions(
    indices=("i", "j", "k"),
    symbols=("s_i", "m"),
    definitions={"p_i": "e^{s_i} / Σ_k e^{s_k}"},
    aliases={"p_i": ("softmax_i",)},
)
MISTAKES = (("Var(q·k)/sqrt(d_k)", "the constant comes out squared"),)

# (previous, line, expected, assumptions, mistakes): right, wrong, unreadable and unchecked lines.
STEPS = [
    ("Var(q·k/√d_k)", "= Var(q·k)/d_k", "Var(q·k)/d_k", SCORES, MISTAKES),
    ("Var(q·k/√d_k)", "= Var(q·k)/√d_k", "Var(q·k)/d_k", SCORES, MISTAKES),
    ("Var(q·k/√d_k)", "= Var(q·k)/d_k = 2", "1", SCORES, ()),
    (None, "E[q·k] = Σ_a E[q_a] E[k_a] = 0", "0", SCORES, ()),
    ("Σ_a E[q_a k_a]", "= Σ_a E[q_a] E[k_a]", None, SCORES, ()),
    ("Var(q·k)", "= E[", "d_k", SCORES, ()),
    ("Var(q·k)", "= E[exp(q·k)]", None, SCORES, ()),
    ("Var(q·k)", "__import__('os')", None, SCORES, ()),
    ("p_i", "= e^{s_i - m} / Σ_j e^{s_j - m}", None, SOFTMAX, ()),
    (None, "∂p_i/∂s_j = p_i (δ_ij - p_j)", None, SOFTMAX, ()),
    (None, "∂p_i/∂s_j = -p_i p_j", None, SOFTMAX, ()),
]


@pytest.mark.parametrize(("previous", "line", "expected", "assumptions", "mistakes"), STEPS)
def test_the_worker_gives_the_in_process_step_verdict(
    previous: str | None,
    line: str,
    expected: str | None,
    assumptions: Assumptions,
    mistakes: tuple[tuple[str, str], ...],
    checker: BoundedChecker,
) -> None:
    in_process = derivation.check_step(
        previous, line, expected=expected, assumptions=assumptions, mistakes=mistakes
    )
    in_worker = bounded_derivation.check_step(
        checker, previous, line, expected=expected, assumptions=assumptions, mistakes=mistakes
    )
    assert in_worker == in_process


def test_steps_are_checked_in_the_one_warm_worker(checker: BoundedChecker) -> None:
    checker.start()
    pid = checker.pid()
    assert pid is not None
    verdict = bounded_derivation.check_step(
        checker, "Var(q·k)", "= d_k", expected="d_k", assumptions=SCORES
    )
    assert verdict.correct
    assert checker.pid() == pid


def test_an_unreadable_expected_step_is_still_the_authors_problem(checker: BoundedChecker) -> None:
    with pytest.raises(BankError, match="cannot be read"):
        bounded_derivation.check_step(
            checker, "Var(q·k)", "= d_k", expected="E[", assumptions=SCORES
        )


def test_an_unreadable_definition_is_reported_with_its_name(checker: BoundedChecker) -> None:
    broken = Assumptions(indices=("i",), symbols=("s_i",), definitions={"p_i": "e^{"})
    with pytest.raises(BankError, match="definition of p_i"):
        bounded_derivation.check_step(checker, None, "p_i = p_i", assumptions=broken)


# --- the wire format ------------------------------------------------------------------------------

NAMES = st.text(alphabet="abcdqkxsp_ijTnδ·", min_size=1, max_size=6)
TEXT = st.text(max_size=40)
LINKS = st.builds(BrokenLink, TEXT, TEXT, TEXT, TEXT, st.booleans())


@st.composite
def step_verdicts(draw: st.DrawFn) -> StepVerdict:
    readable = draw(st.booleans())
    return StepVerdict(
        readable=readable,
        valid=readable and draw(st.booleans()),
        reaches_expected=draw(st.booleans()),
        interpreted_as=draw(TEXT),
        message=draw(TEXT),
        broken=tuple(draw(st.lists(LINKS, max_size=3))),
        value=draw(TEXT),
        last_side=draw(TEXT),
        rules=tuple(draw(st.lists(TEXT, max_size=3))),
        checked=draw(st.booleans()),
    )


@given(step_verdicts())
def test_a_step_verdict_survives_the_trip_through_json(verdict: StepVerdict) -> None:
    line = json.dumps(step_verdict_to_data(verdict), ensure_ascii=True)
    assert step_verdict_from_data(json.loads(line)) == verdict


@given(
    st.builds(
        Assumptions,
        normal_vectors=st.tuples(NAMES, NAMES),
        dimension=NAMES,
        indices=st.lists(NAMES, max_size=3).map(tuple),
        symbols=st.lists(NAMES, max_size=3).map(tuple),
        aliases=st.dictionaries(NAMES, st.lists(NAMES, max_size=2).map(tuple), max_size=2),
        definitions=st.dictionaries(NAMES, TEXT, max_size=2),
    )
)
def test_assumptions_survive_the_trip_through_json(assumptions: Assumptions) -> None:
    request = StepRequest("E[q·k]", "= 0", None, assumptions, ())
    line = json.dumps({"id": 1, **request_to_data(request)}, ensure_ascii=True)
    assert request_from_data(json.loads(line)).assumptions == assumptions


GOOD = step_verdict_to_data(StepVerdict(readable=True, valid=True, reaches_expected=True))


@pytest.mark.parametrize(
    "bad",
    [
        None,
        [],
        "correct",
        {**GOOD, "valid": "yes"},
        {**GOOD, "readable": False},  # an unreadable line is never valid
        {**GOOD, "message": 3},
        {**GOOD, "broken": [{"left": "a"}]},
        {**GOOD, "broken": "none"},
        {**GOOD, "rules": [1]},
        {**GOOD, "correct": True},  # `correct` is worked out, never sent
        {key: value for key, value in GOOD.items() if key != "reaches_expected"},
    ],
    ids=repr,
)
def test_a_malformed_step_verdict_is_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        step_verdict_from_data(bad)


def test_the_worker_answers_a_check_step_request_with_plain_data() -> None:
    request = StepRequest("Var(q·k/√d_k)", "= Var(q·k)/√d_k", "Var(q·k)/d_k", SCORES, MISTAKES)
    reply = answer_request(json.dumps({"id": 7, **request_to_data(request)}).encode())
    assert reply["id"] == 7
    verdict = step_verdict_from_data(json.loads(json.dumps(reply["step_verdict"])))
    assert not verdict.correct and "comes out squared" in verdict.message


@pytest.mark.parametrize(
    "fields",
    [
        {"step": 3},
        {"step": "= d_k", "previous": ["Var(q·k)"]},
        {"step": "= d_k", "assumptions": {"normal_vectors": "qk"}},
        {"step": "= d_k", "assumptions": {"shell": "rm"}},
        {"step": "= d_k", "mistakes": [["only a value"]]},
    ],
    ids=repr,
)
def test_a_malformed_check_step_request_gets_a_protocol_error(fields: dict[str, object]) -> None:
    reply = answer_request(json.dumps({"id": 1, "op": "check_step", **fields}).encode())
    assert reply["error"] == "protocol"


def test_an_authors_mistake_comes_back_as_a_bank_error() -> None:
    request = StepRequest("Var(q·k)", "= d_k", "E[", SCORES, ())
    reply = answer_request(json.dumps({"id": 2, **request_to_data(request)}).encode())
    assert reply["error"] == "bank" and reply["problems"]
