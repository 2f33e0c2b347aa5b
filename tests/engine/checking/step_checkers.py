"""Run a derivation test module with both step checkers: in-process and in the worker.

`both_step_checkers` runs every test of a module twice: once with `check_step` in-process
(`engine.checking.derivation`) and once through the bounded checking worker
(`engine.checking.derivation.bounded` with the test run's warm checker, the path the drills
take), so both must give the same verdicts. A module opts in by importing the fixture and
marking itself with `pytestmark = pytest.mark.usefixtures("both_step_checkers")`; its tests
call the module-level name `check_step`, which the fixture points at one checker or the other.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import pytest

from engine.checking import derivation
from engine.checking.derivation import bounded as bounded_derivation
from tests.conftest import warm_checker


@pytest.fixture(scope="module", params=["in-process", "in-worker"])
def both_step_checkers(request: pytest.FixtureRequest) -> Iterator[str]:
    module = request.module
    original = module.check_step
    module.check_step = (
        derivation.check_step
        if request.param == "in-process"
        else partial(bounded_derivation.check_step, warm_checker())
    )
    yield request.param
    module.check_step = original
