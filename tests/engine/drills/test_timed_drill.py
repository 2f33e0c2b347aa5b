"""The timed memorization drill of set 15, run through its pure core with a clock the test moves.

The learner's replies come from a scripted front end; every reply takes as many seconds of the
fake clock as the test says, so nothing here depends on real time.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from engine.bank.catalog import open_set
from engine.bank.model import QuestionSet
from engine.drills.clocked.run import DrillRun, PartStatus, QuestionCheck, Reply, TimeUp
from engine.drills.timed.file import (
    TimedDrill,
    TimedPart,
    TimedQuestion,
    load_timed_drill,
    timed_drill_file,
)
from engine.drills.timed.grading import BankChecker, question_text
from engine.drills.timed.run import Prompt, run_drill
from engine.drills.timed.view import ScriptedTimedFrontend
from engine.errors import BankError
from tests.conftest import warm_checker
from tests.engine.drills.pacing import FakeClock
from tests.engine.drills.pacing import PacedFrontend as Paced

EQUATION = "softmax(Q K^T / sqrt(d_k)) V"
SHAPES = ["(T_q, T_k)", "T_q x d_v"]
VARIANCE = ["Var(q·k) = Σ_a Var(q_a k_a) = d_k", "1"]
MAX_TRICK = "exp(s_i - m)/sum_j exp(s_j - m) = exp(s_i)/sum_j exp(s_j)"
GOOD_CODE = """def attention(Q, K, V):
    S = Q @ K.T / np.sqrt(Q.shape[-1])
    S = S - S.max(axis=-1, keepdims=True)
    A = np.exp(S)
    A = A / A.sum(axis=-1, keepdims=True)
    return A @ V
."""
RIGHT_ANSWERS = [EQUATION, *SHAPES, *VARIANCE, MAX_TRICK, GOOD_CODE]


class PacedFrontend(Paced):
    scripted = ScriptedTimedFrontend


def set_15(store: Path) -> QuestionSet:
    return open_set("15", store)


def drill_15(store: Path) -> tuple[TimedDrill, QuestionSet]:
    qset = set_15(store)
    found = timed_drill_file("15", store)
    assert found is not None, "set 15 ships a timed drill"
    return load_timed_drill(*found, qset), qset


def drive(
    store: Path,
    lines: list[str],
    seconds: list[float] | None = None,
    clock: FakeClock | None = None,
) -> tuple[DrillRun, PacedFrontend]:
    drill, qset = drill_15(store)
    clock = clock or FakeClock()
    frontend = PacedFrontend(lines, clock, iter(seconds or []))
    run = run_drill(
        drill, frontend, BankChecker(qset, warm_checker()), clock, prompt_of=question_text(qset)
    )
    return run, frontend


def test_the_shipped_drill_asks_the_five_things_to_memorize(store_home: Path) -> None:
    drill, _ = drill_15(store_home)
    assert [part.id for part in drill.parts] == [
        "equation",
        "shapes",
        "variance",
        "max-trick",
        "implementation",
    ]
    assert drill.limit_seconds == 300


def test_right_answers_finish_every_part_within_the_limit(store_home: Path) -> None:
    run, frontend = drive(store_home, RIGHT_ANSWERS, [20, 10, 10, 30, 15, 40, 90])
    assert [p.status for p in run.parts] == [PartStatus.RIGHT] * 5
    assert [p.seconds for p in run.parts] == [20, 20, 45, 40, 90]
    assert run.total_seconds == 215
    assert run.within_limit
    # The countdown before every prompt: 300 s at first, then what the earlier answers left.
    assert [round(p.remaining_seconds) for p in frontend.prompts] == [
        300,
        280,
        270,
        260,
        230,
        215,
        175,
    ]
    assert "⏱ 5:00 left" in frontend.text
    assert "⏱ 4:40 left" in frontend.text


def test_a_wrong_answer_is_asked_again_and_counts_as_an_attempt(store_home: Path) -> None:
    lines = ["softmax(Q K^T / d_k) V", EQUATION, *RIGHT_ANSWERS[1:]]
    run, frontend = drive(store_home, lines)
    equation = run.parts[0]
    assert equation.status is PartStatus.RIGHT
    assert equation.attempts == 2
    assert "✗ not yet" in frontend.text
    assert frontend.prompts[1].attempt == 2
    assert "try 2" in frontend.text
    assert run.within_limit


def test_the_plain_softmax_does_not_pass_for_the_max_trick(store_home: Path) -> None:
    lines = [*RIGHT_ANSWERS[:5], "exp(s_i)/sum_j exp(s_j)", MAX_TRICK, GOOD_CODE]
    run, frontend = drive(store_home, lines)
    assert run.parts[3].attempts == 2
    assert "the m is missing from the numerator and the denominator" in frontend.text
    assert run.within_limit


def test_running_out_of_time_stops_the_drill_and_leaves_the_rest_undone(
    store_home: Path,
) -> None:
    # The shapes take until 5:10: that answer comes too late and is not graded.
    run, frontend = drive(store_home, RIGHT_ANSWERS, [60, 60, 190])
    statuses = [p.status for p in run.parts]
    assert statuses == [
        PartStatus.RIGHT,
        PartStatus.TIMED_OUT,
        PartStatus.NOT_REACHED,
        PartStatus.NOT_REACHED,
        PartStatus.NOT_REACHED,
    ]
    assert run.parts[1].attempts == 1  # the first shape only; the late one was not graded
    assert run.total_seconds == 310
    assert not run.within_limit
    assert "time is up" in frontend.text


def test_finishing_every_part_after_the_limit_is_not_within_it(store_home: Path) -> None:
    run, _ = drive(store_home, RIGHT_ANSWERS, [290, 1, 1, 1, 1, 1, 10])
    assert run.parts[-1].status is PartStatus.TIMED_OUT
    assert not run.within_limit


def test_code_that_divides_by_d_k_is_diagnosed_as_scale_by_d(store_home: Path) -> None:
    wrong = GOOD_CODE.replace("np.sqrt(Q.shape[-1])", "Q.shape[-1]")
    run, frontend = drive(store_home, [*RIGHT_ANSWERS[:-1], wrong])
    implementation = run.parts[-1]
    assert implementation.status is PartStatus.STOPPED  # the input ended after the wrong try
    assert implementation.diagnosis == ["scale_by_d"]
    assert "divided by d_k instead of √d_k" in frontend.text
    assert not run.within_limit


def test_skip_moves_on_and_an_empty_line_ends_the_drill(store_home: Path) -> None:
    run, _ = drive(store_home, [":skip", *SHAPES, ""])
    assert [p.status for p in run.parts[:4]] == [
        PartStatus.SKIPPED,
        PartStatus.RIGHT,
        PartStatus.STOPPED,
        PartStatus.NOT_REACHED,
    ]
    assert not run.interrupted


def test_ctrl_c_ends_the_run_as_interrupted_and_saves_it(store_home: Path) -> None:
    drill, qset = drill_15(store_home)
    clock = FakeClock()
    saved: list[DrillRun] = []

    class Interrupting(PacedFrontend):
        def ask(self, prompt: Prompt) -> Reply:
            if prompt.part_number == 2:
                raise KeyboardInterrupt
            return super().ask(prompt)

    frontend = Interrupting([EQUATION], clock, iter([5]))
    run = run_drill(
        drill,
        frontend,
        BankChecker(qset, warm_checker()),
        clock,
        prompt_of=question_text(qset),
        save=lambda r: saved.append(copy.deepcopy(r)),
    )
    assert run.interrupted
    assert [p.status for p in run.parts[:2]] == [PartStatus.RIGHT, PartStatus.STOPPED]
    assert saved[-1].interrupted


def test_a_drill_naming_an_unknown_item_is_a_bank_error(store_home: Path) -> None:
    (store_home / "drills").mkdir()
    mine = store_home / "drills" / "15-timed.yaml"
    mine.write_text(
        "format_version: 1\nset: 15\ntitle: mine\ntimed:\n  parts:\n"
        "    - id: one\n      title: one\n      questions:\n        - item: no-such-item\n",
        encoding="utf-8",
    )
    found = timed_drill_file("15", store_home)
    assert found == (mine, f"{store_home / 'drills'}/15-timed.yaml")
    with pytest.raises(BankError, match=r"15-timed.yaml:9: no item 'no-such-item'"):
        load_timed_drill(*found, set_15(store_home))


def test_two_parts_with_one_id_are_a_bank_error(store_home: Path, capsys) -> None:
    # A run keeps one record per part id: the second part of that id overwrote the first's, so
    # the store said less than the screen had shown (two parts answered, one kept).
    from engine.cli import main

    (store_home / "drills").mkdir()
    part = "    - id: same\n      title: {}\n      questions:\n        - item: {}\n"
    mine = store_home / "drills" / "15-timed.yaml"
    mine.write_text(
        "format_version: 1\nset: 15\ntitle: mine\ntimed:\n  parts:\n"
        + part.format("one", "shape-scores")
        + part.format("two", "shape-output"),
        encoding="utf-8",
    )
    with pytest.raises(BankError, match=r"15-timed.yaml:10: duplicate part id 'same'"):
        load_timed_drill(mine, str(mine), set_15(store_home))
    assert main(["lint", str(mine)]) == 2
    assert "duplicate part id 'same'" in capsys.readouterr().err


def test_time_up_while_the_learner_types_times_out_that_part(store_home: Path) -> None:
    class LiveTimeUp(PacedFrontend):
        def ask(self, prompt: Prompt) -> Reply:
            if prompt.part_number == 3:
                raise TimeUp  # what the live countdown raises when the deadline passes
            return super().ask(prompt)

    drill, qset = drill_15(store_home)
    clock = FakeClock()
    frontend = LiveTimeUp(RIGHT_ANSWERS, clock, iter([]))
    run = run_drill(
        drill, frontend, BankChecker(qset, warm_checker()), clock, prompt_of=question_text(qset)
    )
    assert [p.status for p in run.parts[1:4]] == [
        PartStatus.RIGHT,
        PartStatus.TIMED_OUT,
        PartStatus.NOT_REACHED,
    ]
    assert "time is up" in frontend.text


# --- the max-trick part -----------------------------------------------------------------------
def max_trick(store: Path):  # type: ignore[no-untyped-def]
    drill, qset = drill_15(store)
    part = next(p for p in drill.parts if p.id == "max-trick")
    checker = BankChecker(qset, warm_checker())
    return part, part.questions[0], checker, question_text(qset)


def test_the_max_trick_question_does_not_give_its_own_answer_away(store_home: Path) -> None:
    part, question, checker, text = max_trick(store_home)
    prompt = "".join(text(question).split())
    for answer in (question.answer or "", "exp(s_i-m)/Σ_jexp(s_j-m)", "e^{s_i-m}"):
        shown = "".join(answer.split("=")[-1].split())
        assert shown not in prompt, f"the prompt shows {answer!r}"
    assert checker.check(part, question, question.answer or "").correct


@pytest.mark.parametrize(
    "line",
    [
        "softmax_i(s) = e^{s_i - m} / Σ_j e^{s_j - m}",
        r"softmax_i(s) = \frac{e^{s_i - m}}{\sum_{j=1}^{n} e^{s_j - m}}",
        "exp(s_i - m)/sum_j exp(s_j - m)",
        "e^{s_i - m} / Σ_l e^{s_l - m}",
    ],
)
def test_the_max_trick_accepts_the_equation_form_it_asks_for(store_home: Path, line: str) -> None:
    part, question, checker, _ = max_trick(store_home)
    check = checker.check(part, question, line)
    assert check.correct, check.feedback


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("softmax_i(s) = e^{s_i - m} / Σ_j e^{s_j}", "the m is missing from the denominator"),
        (r"\frac{e^{s_i - m}}{\sum_j e^{s_j}}", "the m is missing from the denominator"),
        ("e^{s_i} / Σ_j e^{s_j - m}", "the m is missing from the numerator"),
        ("e^{s_i}/Σ_j e^{s_j}", "the m is missing from the numerator and the denominator"),
    ],
)
def test_the_max_trick_says_what_is_missing(store_home: Path, line: str, says: str) -> None:
    part, question, checker, _ = max_trick(store_home)
    check = checker.check(part, question, line)
    assert not check.correct
    assert says in check.feedback


def test_the_max_trick_lists_only_the_names_the_question_uses(store_home: Path) -> None:
    part, question, checker, _ = max_trick(store_home)
    check = checker.check(part, question, "e^{s_i - x} / Σ_j e^{s_j - x}")
    assert not check.correct
    assert "(this question uses m, s_i, s_j, s_k)" in check.feedback


def test_a_part_whose_turn_comes_after_the_limit_is_not_reached(store_home: Path) -> None:
    # The first answer comes in time, but checking it takes the clock past the limit: the next
    # part is never shown, so it is not reached (not "time up"), and the first stays right.
    drill, qset = drill_15(store_home)
    clock = FakeClock()
    frontend = PacedFrontend(RIGHT_ANSWERS, clock, iter([10]))

    class SlowChecker:
        def check(self, part: TimedPart, question: TimedQuestion, answer: str) -> QuestionCheck:
            clock.advance(drill.limit_seconds)
            return QuestionCheck(True)

    run = run_drill(drill, frontend, SlowChecker(), clock, prompt_of=question_text(qset))
    assert [p.status for p in run.parts] == [PartStatus.RIGHT] + [PartStatus.NOT_REACHED] * 4
    assert len(frontend.prompts) == 1
    assert "time is up" in frontend.text
    assert not run.within_limit


def test_an_answer_that_cannot_be_read_is_asked_again_without_spending_an_attempt(
    store_home: Path,
) -> None:
    lines = ["softmax(Q K^T / sqrt(d_k) V", EQUATION, *RIGHT_ANSWERS[1:]]
    run, frontend = drive(store_home, lines)
    equation = run.parts[0]
    assert equation.status is PartStatus.RIGHT
    assert equation.attempts == 1  # the unreadable line was not graded
    assert "not graded" in frontend.text
    assert "✗ not yet" not in frontend.text
    assert [p.attempt for p in frontend.prompts[:2]] == [1, 1]
    assert run.within_limit


def test_an_unreadable_derivation_step_is_not_a_wrong_one(store_home: Path) -> None:
    drill, qset = drill_15(store_home)
    part = next(p for p in drill.parts if p.id == "variance")
    checker = BankChecker(qset, warm_checker())
    unreadable = checker.check(part, part.questions[0], "Var(q·k) = (d_k]")
    assert not unreadable.correct and not unreadable.valid
    wrong = checker.check(part, part.questions[0], "d_k^2")
    assert not wrong.correct and wrong.valid


@pytest.mark.parametrize(
    ("line", "correct", "says"),
    [
        ("d_k or d", True, "each answer you offered is right"),
        ("**d_k** or `d_k^2`", False, "give one answer: `d_k^2` is not right"),
    ],
)
def test_a_step_with_several_answers_offered_is_graded_as_a_card_grades_them(
    store_home: Path, line: str, correct: bool, says: str
) -> None:
    drill, qset = drill_15(store_home)
    part = next(p for p in drill.parts if p.id == "variance")
    check = BankChecker(qset, warm_checker()).check(part, part.questions[0], line)
    card = qset.item("var-dot")
    assert card is not None
    assert (check.correct, check.valid) == (correct, True) == (card.grade(line).correct, True)
    assert says in check.feedback


@pytest.mark.parametrize(
    ("line", "correct"),
    [
        ("exp(s_i - m)/Σ_j exp(s_j - m), m = max_j s_j", True),
        ("e^{s_i - m} / Σ_j e^{s_j - m} where m = max(s)", True),
        ("exp(s_i - m)/Σ_j exp(s_j), m = max_j s_j", False),
    ],
)
def test_a_closing_reminder_of_what_m_means_is_not_part_of_the_answer(
    store_home: Path, line: str, correct: bool
) -> None:
    part, question, checker, _ = max_trick(store_home)
    check = checker.check(part, question, line)
    assert check.valid and check.correct is correct, check.feedback


@pytest.mark.parametrize(
    "line", ["exp(s_i + m)/sum_j exp(s_j + m)", "e^{m + s_i} / Σ_j e^{m + s_j}"]
)
def test_adding_m_is_not_the_shift_the_max_trick_asks_for(store_home: Path, line: str) -> None:
    part, question, checker, _ = max_trick(store_home)
    check = checker.check(part, question, line)
    assert check.valid and not check.correct
    assert "the m is added, but the form asked for subtracts it" in check.feedback


def test_a_shift_written_as_a_factor_e_to_the_minus_m_is_still_subtracting(
    store_home: Path,
) -> None:
    part, question, checker, _ = max_trick(store_home)
    assert checker.check(part, question, "e^{s_i} e^{-m} / Σ_j e^{s_j} e^{-m}").correct


@pytest.mark.parametrize(
    ("line", "correct"),
    [
        ("(exp(s_i)/exp(m)) / (Σ_j exp(s_j)/exp(m))", True),  # dividing by e^m subtracts m
        ("e^{s_i}/e^{m} / (Σ_l e^{s_l}/e^{m})", True),
        ("(e^{s_i}/e^{-m}) / (Σ_j e^{s_j}/e^{-m})", False),  # dividing by e^{-m} adds it
    ],
)
def test_a_shift_written_as_a_division_by_e_to_the_m_is_subtracting(
    store_home: Path, line: str, correct: bool
) -> None:
    part, question, checker, _ = max_trick(store_home)
    check = checker.check(part, question, line)
    assert check.correct is correct, check.feedback
    if not correct:
        assert "the m is added" in check.feedback
