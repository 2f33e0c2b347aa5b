"""Derivation drills: the shipped file checks, bad files are reported, scripted runs are graded."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engine.checking.derivation.step import StepVerdict
from engine.drills.chain import chain_problems, judge_at
from engine.drills.due import due_drills
from engine.drills.loader import load_drill_file
from engine.drills.runner import StepResult, grade_of
from engine.paths import STORE_FILE
from engine.schedule import CardState, Grade, Phase
from tests.conftest import warm_checker
from tests.engine.cli.conftest import run  # noqa: F401  (the fixture)

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = ROOT / "drills" / "15.yaml"
REQUIRED = {
    "mean-var-dot", "var-scaled", "max-trick", "softmax-jacobian", "intensity-crossover",
    "backward-pass",
}  # fmt: skip
VAR_SCALED = ["= Var(q·k)/d_k", "= Σ_a Var(q_a k_a) / d_k", "= 1", "sqrt(512)"]


def shipped_drills():  # type: ignore[no-untyped-def]
    loaded = load_drill_file(SHIPPED, "drills/15.yaml", set_name="15")
    assert loaded.problems == []
    return loaded.drills


def judged(drill: str, step: int, line: str, *, skip_ahead: bool = True) -> StepVerdict:
    """The verdict on `line` at step `step` (1-based) of the shipped drill `drill`."""
    drills = {d.id: d for d in shipped_drills()}
    return judge_at(warm_checker(), drills[drill], step - 1, line, skip_ahead=skip_ahead).verdict


def reviews(home: Path) -> list[tuple[str, int]]:
    db = sqlite3.connect(home / STORE_FILE)
    try:
        return list(db.execute("SELECT item_id, rating FROM reviews ORDER BY id"))
    finally:
        db.close()


# --- the shipped drills -----------------------------------------------------------------------


def test_the_shipped_drills_cover_the_six_derivations_in_3_to_6_steps() -> None:
    drills = shipped_drills()
    assert {d.id for d in drills} == REQUIRED
    assert all(3 <= len(d.steps) <= 6 for d in drills)


@pytest.mark.parametrize("drill", shipped_drills(), ids=lambda d: d.id)
def test_every_expected_chain_checks_step_by_step(drill) -> None:  # type: ignore[no-untyped-def]
    assert chain_problems(drill, warm_checker()) == []


@pytest.mark.parametrize(
    ("drill", "step", "line", "right"),
    [
        # the closed result the chain ends with, where the step asks for a form: not the step
        ("mean-var-dot", 1, "0", False),
        ("mean-var-dot", 1, "E[q·k] = 0", False),
        ("mean-var-dot", 2, "0", False),
        ("mean-var-dot", 4, "Var(q·k) = d_k", False),  # a step checked by value, then follows
        ("var-scaled", 1, "1", False),
        ("softmax-jacobian", 1, "p_i (δ_ij - p_j)", False),
        # ... shown on the way, or going further in a form, it counts
        ("mean-var-dot", 1, "Σ_a E[q_a k_a] = 0", True),
        ("mean-var-dot", 1, "Σ_a E[q_a] E[k_a]", True),
        ("mean-var-dot", 4, "Var(q·k) = Σ_a Var(q_a k_a) = d_k", True),
        ("var-scaled", 1, "Var(q·k/√d_k) = Var(q·k)/d_k = d_k/d_k = 1", True),
        ("softmax-jacobian", 1, "p_i δ_ij - p_i p_j", True),  # one step further, not the end
        ("softmax-jacobian", 2, "p_i (δ_ij - p_j)", True),  # the step asks for no Σ, E or Var
        ("mean-var-dot", 3, "0", True),  # the step that asks for the closed result
    ],
)
def test_a_bare_final_result_does_not_stand_for_the_step_it_skips(
    drill: str, step: int, line: str, right: bool
) -> None:
    verdict = judged(drill, step, line)
    assert verdict.correct is right, verdict.message
    if not right:
        assert verdict.readable and "this step left out" in verdict.message
    # `attnquiz check --step` (no skipping) gives the same verdict
    assert judged(drill, step, line, skip_ahead=False).correct is right


# Lint passes the shipped drills: tests/engine/bank/test_lint.py lints drills/ once, with the
# same assertions (exit 0, "no problems").


# --- malformed drill files ----------------------------------------------------------------------

BAD = """\
format_version: 1
set: 15
title: Broken drills
drills:
  - id: unknown-field
    title: An unknown field
    goal: g
    start: Var(q·k)
    assumptions: {normal_vectors: [q, k]}
    steps:
      - ask: a
        expect: d_k
        hint: h
        colour: red
    target: t
  - id: wrong-chain
    title: A step that does not follow
    goal: g
    start: Var(q·k/√d_k)
    assumptions: {normal_vectors: [q, k]}
    steps:
      - ask: a
        expect: Var(q·k)/√d_k
        hint: h
    target: t
  - id: no-start
    title: Follows nothing
    goal: g
    steps:
      - ask: a
        expect: "1"
        hint: h
    target: t
"""


def test_a_malformed_drill_file_is_reported_line_by_line_with_exit_2(
    run,  # noqa: F811
    tmp_path: Path,
) -> None:
    path = tmp_path / "drills" / "15.yaml"
    path.parent.mkdir()
    path.write_text(BAD, encoding="utf-8")
    result = run("lint", str(path.parent))
    assert result.returncode == 2
    assert f"{path}:14: drill 'unknown-field': unknown field 'steps.0.colour'" in result.stderr
    assert f"{path}:23: drill 'wrong-chain': step 1: the expected line does not follow" in (
        result.stderr
    )
    assert f"{path}:30: drill 'no-start': step 1 follows `start`" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_yaml_syntax_error_in_a_users_drills_stops_the_drill_command(
    run,  # noqa: F811
    store_home: Path,
) -> None:
    (store_home / "drills").mkdir()
    (store_home / "drills" / "mine.yaml").write_text("format_version: 1\nset: [\n")
    result = run("drill", "mine")
    assert result.returncode == 2
    assert "mine.yaml:" in result.stderr
    assert "Traceback" not in result.stderr


# --- scripted runs ------------------------------------------------------------------------------


def test_right_steps_finish_the_drill_rated_good(run, store_home: Path) -> None:  # noqa: F811
    result = run("drill", "15", "var-scaled", input="\n".join(VAR_SCALED) + "\n")
    assert result.returncode == 0, result.stderr
    assert "interpreted as: = Var(q·k)/d_k" in result.stdout
    assert "rated good" in result.stdout
    assert reviews(store_home) == [("drill-var-scaled", int(Grade.GOOD))]


def test_a_line_that_follows_and_gets_further_skips_steps(run, store_home: Path) -> None:  # noqa: F811
    lines = ["= Σ_a Var(q_a k_a)/d_k", "= 1", "sqrt(512)"]
    result = run("drill", "15", "var-scaled", input="\n".join(lines) + "\n")
    assert result.returncode == 0, result.stderr
    assert "skipped: step 1" in result.stdout
    assert reviews(store_home) == [("drill-var-scaled", int(Grade.EASY))]


def test_a_bare_final_result_is_not_a_skip(run, store_home: Path) -> None:  # noqa: F811
    # `= 1` right after Var(q·k)/d_k leaves out the sum the step asks for: it is not step 2, and
    # the drill asks for step 2 again; shown on the way (`= Σ_a ... = 1`) it counts for both.
    lines = ["= Var(q·k)/d_k", "= 1", "= Σ_a Var(q_a k_a)/d_k = 1", "sqrt(512)"]
    result = run("drill", "15", "var-scaled", input="\n".join(lines) + "\n")
    assert result.returncode == 0, result.stderr
    assert "this step left out" in result.stdout
    assert "skipped: step 2" in result.stdout
    assert reviews(store_home) == [("drill-var-scaled", int(Grade.HARD))]


def test_a_wrong_step_gets_the_hint_then_the_right_one_counts_as_hard(
    run,  # noqa: F811
    store_home: Path,
) -> None:
    lines = ["= Var(q·k)/√d_k", *VAR_SCALED]
    result = run("drill", "15", "var-scaled", input="\n".join(lines) + "\n")
    assert result.returncode == 0, result.stderr
    assert "the constant comes out squared" in result.stdout  # the known mistake's message
    assert "hint: A constant comes out of a variance squared" in result.stdout
    assert reviews(store_home) == [("drill-var-scaled", int(Grade.HARD))]


def test_a_second_miss_shows_the_expected_step_and_goes_on_from_it(
    run,  # noqa: F811
    store_home: Path,
) -> None:
    lines = ["= Var(q·k)/√d_k", "= 7", *VAR_SCALED[1:]]
    result = run("drill", "15", "var-scaled", input="\n".join(lines) + "\n")
    assert result.returncode == 0, result.stderr
    assert "(go on from there)" in result.stdout
    assert reviews(store_home) == [("drill-var-scaled", int(Grade.AGAIN))]


def test_a_slip_is_named_and_the_learner_goes_on_with_their_own_index_letters(
    run,  # noqa: F811
    store_home: Path,
) -> None:
    lines = [
        r"= \sum_{i=1}^{d_k} E[q_i k_i]",
        "= Σ_i E[q_i k_i]^2",
        "= Σ_i E[q_i] E[k_i]",
        "= Σ_i 0·0 = 0",
        "Var(q·k) = d_k Var(q_1 k_1)",
        "= Σ_a (E[q_a²]E[k_a²] − E[q_a]²E[k_a]²)",
        "= d_k",
    ]
    result = run("drill", "15", "mean-var-dot", input="\n".join(lines) + "\n")
    assert result.returncode == 0, result.stderr
    assert "squaring is not a valid step" in result.stdout
    assert "not an index" not in result.stdout
    assert reviews(store_home) == [("drill-mean-var-dot", int(Grade.HARD))]


def test_solving_for_d_k_and_matrix_steps_are_checked(run, store_home: Path) -> None:  # noqa: F811
    lines = ["2T^2 d_k", "8 T d_k + 8 T^2", "T d/(4(d+T))", "= d_k/(4(1 + d_k/T))", "d_k/4",
             "d_k = 4*10 = 40"]  # fmt: skip
    assert run("drill", "15", "intensity-crossover", input="\n".join(lines) + "\n").returncode == 0
    lines = ["= a_j", "δ a_j", "dL/dV = δ^T A", "dL/dV = A^T δ", "k_t/√d_k",
             "Σ_t g_t k_t/√d_k", "dL/dQ = (1/√d_k) G K"]  # fmt: skip
    result = run("drill", "15", "backward-pass", input="\n".join(lines) + "\n")
    assert "that is (dL/dV)ᵀ" in result.stdout
    assert reviews(store_home) == [
        ("drill-intensity-crossover", int(Grade.GOOD)),
        ("drill-backward-pass", int(Grade.HARD)),
    ]


def test_a_self_rated_step_reads_a_rating(run, store_home: Path) -> None:  # noqa: F811
    # step 1 shown, steps 2 and 3 in one line, then the self-rated step 4
    quotient = "= (δ_ij e^{s_i} Σ_k e^{s_k} - e^{s_i} e^{s_j}) / (Σ_k e^{s_k})^2"
    lines = [quotient, "= p_i (δ_ij - p_j)", "again"]
    result = run("drill", "15", "softmax-jacobian", input="\n".join(lines) + "\n")
    assert "expected: Every entry is near 0" in result.stdout
    assert reviews(store_home) == [("drill-softmax-jacobian", int(Grade.AGAIN))]


def test_commands_hint_and_skip_in_scripted_mode(run, store_home: Path) -> None:  # noqa: F811
    lines = [":hint", ":skip", *VAR_SCALED[1:]]
    result = run("drill", "15", "var-scaled", input="\n".join(lines) + "\n")
    assert "hint: A constant comes out" in result.stdout
    assert "expected: " in result.stdout
    assert reviews(store_home) == [("drill-var-scaled", int(Grade.AGAIN))]


def test_an_empty_line_ends_the_session_and_an_unfinished_drill_is_no_review(
    run,  # noqa: F811
    store_home: Path,
) -> None:
    result = run("drill", "15", input="= E[Σ_a q_a k_a]\n\n")
    assert result.returncode == 0
    assert "drill 1/6: mean-var-dot" in result.stdout
    assert reviews(store_home) == []


def test_unknown_drill_or_set_exits_2(run) -> None:  # noqa: F811
    unknown = run("drill", "15", "no-such-drill")
    assert unknown.returncode == 2
    assert "has no drill 'no-such-drill'" in unknown.stderr
    assert run("drill", "no-such-set").returncode == 2


# --- rating and scheduling, without a terminal ----------------------------------------------------


def test_the_rating_comes_from_how_the_steps_went() -> None:
    first, hinted = StepResult.FIRST_TRY, StepResult.HINTED
    assert grade_of([first, first]) == Grade.GOOD
    assert grade_of([first, StepResult.SKIPPED, first]) == Grade.EASY
    assert grade_of([first, hinted, StepResult.SKIPPED]) == Grade.HARD
    assert grade_of([hinted, StepResult.REVEALED]) == Grade.AGAIN


def test_due_drills_come_first_then_new_ones_and_later_ones_wait() -> None:
    drills = tuple(shipped_drills())
    now = datetime(2026, 1, 10, 12, tzinfo=UTC)
    cards = {
        "drill-mean-var-dot": CardState(phase=Phase.REVIEW, due=now + timedelta(days=5)),
        "drill-backward-pass": CardState(phase=Phase.REVIEW, due=now - timedelta(days=1)),
    }
    ids = [d.id for d in due_drills(drills, cards, now)]
    assert ids[0] == "backward-pass"
    assert "mean-var-dot" not in ids
    assert ids[1:] == ["var-scaled", "max-trick", "softmax-jacobian", "intensity-crossover"]


GIVEN = """format_version: 1
kind: drills
set: 15
title: Given values
drills:
  - id: given-values
    title: Values the question gives
    goal: g
    assumptions:
      normal_vectors: [q, k]
    steps:
      - ask: The standard deviation at d_k = 512?
        check: value
        given: {d_k: "51)2"}
        expect: sqrt(512)
        hint: h
      - ask: Why?
        check: self-rated
        given: {d_k: "512"}
        expect: because
        hint: h
    target: t
"""


def test_a_given_value_must_be_readable_and_belongs_to_a_checked_step(tmp_path: Path) -> None:
    path = tmp_path / "15.yaml"
    path.write_text(GIVEN, encoding="utf-8")
    loaded = load_drill_file(path, "drills/15.yaml", set_name="15")
    assert loaded.problems == [
        "drills/15.yaml:17: drill 'given-values': step 2 is self-rated: no checker reads its "
        "mistakes, solve_for or given values"
    ]
    (drill,) = loaded.drills
    problems = chain_problems(drill, warm_checker())
    assert problems and "the definition of d_k cannot be read" in problems[0][1]


def test_a_line_may_put_the_given_values_into_the_general_formula_but_must_end_with_them() -> None:
    drill = next(d for d in shipped_drills() if d.id == "var-scaled")
    checker = warm_checker()
    assert judge_at(checker, drill, 3, "std = √d_k = √512").verdict.correct
    assert judge_at(checker, drill, 3, "Std(q·k) = 16√2").verdict.correct
    left_in = judge_at(checker, drill, 3, "√d_k").verdict
    assert not left_in.correct and "put in d_k = 512" in left_in.message
    assert not judge_at(checker, drill, 3, "Var(q·k) = √512").verdict.correct


@pytest.mark.parametrize(
    ("drill", "step", "line", "right"),
    [
        ("intensity-crossover", 1, "Bytes: 2 T² d_k", False),  # step 2's quantity
        ("intensity-crossover", 1, "bytes = 2 T^2 d_k", False),
        ("intensity-crossover", 1, "flops = 2 T^2 d_k", True),  # a word, whatever its case
        ("intensity-crossover", 2, "FLOPs = 8 T d_k + 8 T^2", False),
        ("intensity-crossover", 2, "Bytes: 8 T (d_k + T)", True),
        ("intensity-crossover", 6, "FLOPs = 40", False),  # the step solves for d_k
        ("intensity-crossover", 3, "intensity = T d_k / (4 (d_k + T))", True),  # not the drill's
        ("intensity-crossover", 3, "bytes/FLOPs = T d_k / (4(d_k + T))", False),  # upside down
        ("intensity-crossover", 3, "flops / bytes = T d_k / (4(d_k + T))", True),
        ("backward-pass", 5, "dL/dq = Σ_t g_t k_t / √d_k", True),  # dL/dq is not dL/dQ
    ],
)
def test_a_line_naming_another_steps_quantity_is_not_this_step(
    drill: str, step: int, line: str, right: bool
) -> None:
    verdict = judged(drill, step, line)
    assert verdict.correct is right, verdict.message
    if not right:
        assert "another quantity" in verdict.message
