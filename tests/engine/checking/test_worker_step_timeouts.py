"""A derivation line that takes too long gets a clear verdict in time, and the drill goes on.

The stalled checks here never end by themselves (`hostile_worker` sleeps forever on its line),
so a short limit stops them whatever the speed of the machine, while every ordinary line gets a
generous one. The one real slow line takes minutes of SymPy, far past its limit, and is judged
not correct whether or not it finishes; the only bound on time is a generous one.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from engine.checking.derivation import Assumptions
from engine.checking.derivation.bounded import check_step
from engine.checking.worker import bounded
from engine.checking.worker.bounded import BoundedChecker
from engine.drills.loader import load_drill_file
from engine.drills.model import Drill
from engine.drills.runner import DrillRun
from engine.schedule import Grade
from tests.engine.checking.conftest import Limits
from tests.engine.checking.hostile_worker import CRASHING_LINE, STALLING_LINE
from tests.engine.cli.conftest import run  # noqa: F401  (the fixture)

# Each test waits for a check to be stopped.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
SCORES = Assumptions(normal_vectors=("q", "k"), aliases={"d_k": ("d", "dk")})
# Safe to read (every power and degree within the reader's limits), yet diagnosing why it is
# wrong expands a polynomial of degree 198: minutes of SymPy.
SLOW_LINE = "= (E[(q·k)^6]+d)^66 - (E[(q·k)^6]+2)^66"
VAR_SCALED = ["= Var(q·k)/d_k", "= Σ_a Var(q_a k_a) / d_k", "= 1"]
GENEROUS_S = 90
# The limit of a whole scripted drill run, slow line and ordinary lines alike: what a slow line
# costs in CPU, and many times what an ordinary line needs.
DRILL_RUN_LIMIT_S = 1.5


def var_scaled() -> Drill:
    loaded = load_drill_file(ROOT / "drills" / "15.yaml", "drills/15.yaml", set_name="15")
    return next(drill for drill in loaded.drills if drill.id == "var-scaled")


def test_a_step_that_never_finishes_is_stopped_and_is_never_correct(
    hostile_checker: BoundedChecker, limits: Limits
) -> None:
    checker = hostile_checker
    assert check_step(checker, "Var(q·k/√d_k)", "= Var(q·k)/d_k", assumptions=SCORES).correct
    stalled = checker.pid()
    with limits.short() as seconds:
        verdict = check_step(
            checker, "Var(q·k/√d_k)", STALLING_LINE, expected="1", assumptions=SCORES
        )
        assert not verdict.correct and not verdict.valid and not verdict.checked
        assert verdict.readable  # the line is fine to read; it is the checking that gave up
        assert verdict.message == (
            f"could not check this step in time ({seconds:g} s); write it more simply"
        )
    assert checker.pid() not in (None, stalled)  # a fresh worker, already starting
    assert check_step(checker, "Var(q·k/√d_k)", "= Var(q·k)/d_k", assumptions=SCORES).correct


def test_a_worker_that_dies_on_a_step_gives_an_unchecked_verdict_then_restarts(
    hostile_checker: BoundedChecker, limits: Limits
) -> None:
    checker = hostile_checker
    assert check_step(checker, "Var(q·k/√d_k)", "= Var(q·k)/d_k", assumptions=SCORES).correct
    crashed = checker.pid()
    verdict = check_step(checker, "Var(q·k/√d_k)", CRASHING_LINE, assumptions=SCORES)
    assert not verdict.correct and not verdict.checked
    assert verdict.message.startswith("could not check this step: the checker stopped")
    assert "exit code 70" in verdict.message
    assert checker.pid() not in (None, crashed)
    assert check_step(checker, "Var(q·k/√d_k)", "= Var(q·k)/d_k", assumptions=SCORES).correct


def test_the_drill_goes_on_after_a_step_that_timed_out(
    hostile_checker: BoundedChecker, limits: Limits
) -> None:
    drill = DrillRun(var_scaled(), hostile_checker)
    with limits.short():
        reply = drill.answer(STALLING_LINE)
    assert not reply.verdict.correct
    assert reply.verdict.message.startswith("could not check this step in time")
    assert drill.index == 0 and reply.hint is not None  # a miss: the hint, not the next step
    for line in VAR_SCALED:
        assert drill.answer(line).verdict.correct, line
    assert drill.answer("sqrt(512)").verdict.correct
    assert drill.finished and drill.grade() == Grade.HARD


def test_a_slow_but_readable_line_gets_a_verdict_and_a_scripted_drill_goes_on(
    run,  # noqa: F811
    store_home: Path,
) -> None:
    # A real line, through the command line with its real checker: one CPU-bound runaway in
    # SymPy, stopped by the limit.
    lines = [SLOW_LINE, *VAR_SCALED, "sqrt(512)"]
    start = time.monotonic()
    result = run(
        "drill",
        "15",
        "var-scaled",
        input="\n".join(lines) + "\n",
        env={bounded.TIMEOUT_ENV: f"{DRILL_RUN_LIMIT_S:g}"},
    )
    assert time.monotonic() - start < GENEROUS_S
    assert result.returncode == 0, result.stderr
    # The slow line is the one miss (timed out, or on a fast machine judged wrong): step 1 is
    # asked again, the next line answers it, and every later line is accepted.
    assert result.stdout.count("not yet: ") == 1
    assert result.stdout.count("step 1/4: ") == 2
    assert "step 2/4: " in result.stdout
    assert "rated hard" in result.stdout
