"""The rapid-fire shapes drill of set 15: seeded rounds, the core with a fake clock, the store,
and the command in its own process."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from engine.checking import check_shape
from engine.drills.clocked.records import TimedRecords
from engine.drills.clocked.run import DrillRun, PartStatus, QuestionCheck, Reply, TimeUp
from engine.drills.rapid.file import RapidDrill, load_rapid_drill, rapid_drill_file
from engine.drills.rapid.rounds import (
    RapidPrompt,
    RapidQuestion,
    draw_questions,
    run_round,
    shape_grader,
)
from engine.drills.rapid.view import ScriptedRapidFrontend
from engine.paths import STORE_FILE
from engine.store import open_store
from tests.conftest import CliResult, run_cli, warm_checker
from tests.engine.drills.pacing import FakeClock
from tests.engine.drills.pacing import PacedFrontend as Paced


def rapid_15(store: Path) -> RapidDrill:
    found = rapid_drill_file("15", store)
    assert found is not None, "set 15 ships a rapid-fire drill"
    return load_rapid_drill(*found, "15")


class PacedFrontend(Paced):
    scripted = ScriptedRapidFrontend


def in_process(question: RapidQuestion, answer: str) -> QuestionCheck:
    """The shape checker in this process (the drill itself uses the bounded worker)."""
    verdict = check_shape(answer, question.answer)
    return QuestionCheck(verdict.correct, verdict.feedback, verdict.interpreted_as)


def play(
    store: Path, lines: list[str], seconds: list[float] | None = None, count: int = 4
) -> tuple[DrillRun, PacedFrontend, list[RapidQuestion]]:
    drill = rapid_15(store)
    questions = draw_questions(drill, count, random.Random(5))
    clock = FakeClock()
    frontend = PacedFrontend(lines, clock, iter(seconds or []))
    return run_round(drill, questions, frontend, in_process, clock), frontend, questions


def answers(store: Path, count: int = 4) -> list[str]:
    return [q.answer for q in draw_questions(rapid_15(store), count, random.Random(5))]


def test_the_same_seed_draws_the_same_round_and_another_seed_another(store_home: Path) -> None:
    drill = rapid_15(store_home)
    first = draw_questions(drill, 12, random.Random(1))
    assert first == draw_questions(drill, 12, random.Random(1))
    assert first != draw_questions(drill, 12, random.Random(2))
    assert len({q.template_id for q in first}) == 12  # twelve different templates in a round


def test_numbers_are_drawn_so_that_a_swapped_answer_is_wrong(store_home: Path) -> None:
    drill = rapid_15(store_home)
    for seed in range(30):
        for question in draw_questions(drill, 6, random.Random(seed)):
            dims = question.answer.strip("()").split(", ")
            assert check_shape(question.answer, question.answer).correct
            if len(dims) == 2:
                swapped = f"({dims[1]}, {dims[0]})"
                assert not check_shape(swapped, question.answer).correct, question


def test_every_placeholder_is_filled_with_the_round_s_own_dimensions(store_home: Path) -> None:
    for question in draw_questions(rapid_15(store_home), 40, random.Random(9)):
        texts = [question.prompt, question.explanation or "", *(m for _, m in question.mistakes)]
        assert not any("{" in text for text in texts), question


def test_right_answers_in_any_spelling_score_full_within_the_limit(store_home: Path) -> None:
    right = answers(store_home)
    spelled = [right[0], f"[{right[1][1:-1]}]", right[2][1:-1].replace(", ", " x "), right[3]]
    run, frontend, _ = play(store_home, spelled, [3, 4, 5, 6])
    assert [p.status for p in run.parts] == [PartStatus.RIGHT] * 4
    assert [p.seconds for p in run.parts] == [3, 4, 5, 6]
    assert run.total_seconds == 18 and run.within_limit
    assert [round(p.remaining_seconds) for p in frontend.prompts] == [90, 87, 83, 78]
    assert frontend.out.getvalue().count("✓ right") == 4


def test_a_wrong_answer_is_shown_at_once_with_the_correct_shape(store_home: Path) -> None:
    right = answers(store_home)
    run, frontend, questions = play(store_home, ["(1, 2)", *right[1:]])
    assert run.parts[0].status is PartStatus.WRONG
    assert [p.status for p in run.parts[1:]] == [PartStatus.RIGHT] * 3
    assert f"✗ wrong · it is {questions[0].answer}" in frontend.out.getvalue()
    assert not run.within_limit


def test_the_clock_running_out_ends_the_round_and_a_late_answer_is_not_graded(
    store_home: Path,
) -> None:
    run, frontend, _ = play(store_home, answers(store_home), [30, 50, 20])
    assert [p.status for p in run.parts] == [
        PartStatus.RIGHT,
        PartStatus.RIGHT,
        PartStatus.TIMED_OUT,
        PartStatus.NOT_REACHED,
    ]
    assert run.parts[2].attempts == 0
    assert "time is up" in frontend.out.getvalue()


def test_an_empty_line_ends_the_round_and_skip_moves_on(store_home: Path) -> None:
    right = answers(store_home)
    run, _, _ = play(store_home, [":skip", right[1], ""])
    assert [p.status for p in run.parts] == [
        PartStatus.SKIPPED,
        PartStatus.RIGHT,
        PartStatus.STOPPED,
        PartStatus.NOT_REACHED,
    ]


def test_a_known_mistake_gets_its_message_from_the_checking_worker(store_home: Path) -> None:
    drill = rapid_15(store_home)
    template = next(t for t in drill.section.templates if t.id == "scores")
    one = RapidDrill(
        drill.set_name,
        drill.title,
        drill.section.model_copy(update={"templates": (template,)}),
        "x",
    )
    question = draw_questions(one, 1, random.Random(0))[0]
    wrong, message = question.mistakes[0]
    check = shape_grader(warm_checker())(question, wrong)
    assert not check.correct
    assert check.feedback == message


def test_rounds_are_kept_and_the_best_score_is_the_most_right_in_one(store_home: Path) -> None:
    store = open_store(store_home)
    try:
        records = TimedRecords(store.db)
        drill = rapid_15(store_home)
        right = answers(store_home)
        scores = []
        for lines in ([right[0], "(1, 2)", ""], right, ["(1, 2)", ""]):
            clock = FakeClock()
            questions = draw_questions(drill, 4, random.Random(5))
            frontend = PacedFrontend(lines, clock, iter([]))
            run = run_round(drill, questions, frontend, in_process, clock, save=records.save)
            scores.append(records.best_score(run))
        parts = store.db.execute("SELECT count(*) FROM timed_parts").fetchone()[0]
    finally:
        store.close()
    assert scores == [None, 1, 4]
    assert parts == 12  # every question of every round, answered or not


def rapid_command(home: Path, *args: str, lines: list[str]) -> CliResult:
    return run_cli(
        "drill", "15", "--rapid", *args, input="\n".join(lines) + "\n",
        env={"ATTNQUIZ_HOME": str(home)},
    )  # fmt: skip


def test_the_command_runs_a_seeded_round_from_a_script_and_keeps_it(store_home: Path) -> None:
    right = [q.answer for q in draw_questions(rapid_15(store_home), 12, random.Random(42))]
    done = rapid_command(store_home, "--seed", "42", lines=right)
    assert done.returncode == 0, done.stderr
    assert "12/12 right" in done.stdout
    assert "--seed 42" in done.stdout

    again = rapid_command(store_home, "--seed", "42", lines=right[:3])
    assert again.returncode == 1, again.stderr
    assert "3/12 right" in again.stdout
    assert "best before: 12 right" in again.stdout
    db = sqlite3.connect(store_home / STORE_FILE)
    try:
        drills = db.execute("SELECT DISTINCT drill FROM timed_runs").fetchall()
    finally:
        db.close()
    assert drills == [("rapid-shapes",)]


@pytest.mark.parametrize(
    ("args", "message"),
    [(("--timed",), "one of --timed and --rapid"), (("scores",), "leave out the drill name")],
)
def test_conflicting_options_are_usage_errors(
    store_home: Path, args: tuple[str, ...], message: str
) -> None:
    done = rapid_command(store_home, *args, lines=[])
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr


def test_time_up_while_the_learner_types_ends_the_round_at_that_question(
    store_home: Path,
) -> None:
    right = answers(store_home)

    class LiveTimeUp(PacedFrontend):
        def ask(self, prompt: RapidPrompt) -> Reply:
            if prompt.number == 2:
                raise TimeUp  # what the live countdown raises when the deadline passes
            return super().ask(prompt)

    drill = rapid_15(store_home)
    clock = FakeClock()
    frontend = LiveTimeUp(right, clock, iter([]))
    questions = draw_questions(drill, 4, random.Random(5))
    run = run_round(drill, questions, frontend, in_process, clock)
    assert [p.status for p in run.parts] == [
        PartStatus.RIGHT,
        PartStatus.TIMED_OUT,
        PartStatus.NOT_REACHED,
        PartStatus.NOT_REACHED,
    ]
    assert "time is up" in frontend.out.getvalue()


def test_an_answer_that_cannot_be_read_is_asked_again_and_the_shape_not_given_away(
    store_home: Path,
) -> None:
    right = answers(store_home)
    drill = rapid_15(store_home)
    questions = draw_questions(drill, 4, random.Random(5))
    clock = FakeClock()
    frontend = PacedFrontend(["(1, 2", "???", *right], clock, iter([]))
    run = run_round(drill, questions, frontend, shape_grader(warm_checker()), clock)
    assert [p.status for p in run.parts] == [PartStatus.RIGHT] * 4
    assert run.parts[0].attempts == 1
    shown = frontend.out.getvalue()
    assert shown.count("not graded") == 2
    assert f"it is {questions[0].answer}" not in shown
    assert len(frontend.prompts) == 6  # the first question three times, then one each
