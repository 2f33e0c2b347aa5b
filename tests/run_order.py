"""The order the test files run in: the costliest first, so that on two workers neither waits idle
at the end while the other finishes one long file.

pytest-xdist gives each worker one file at a time (`--dist loadfile`, so a module fixture is built
once), in collection order (`--no-loadscope-reorder`). A run that starts with the longest files
and ends with the short ones splits evenly however the costs fall (longest processing time first).
A file's cost is the seconds its selected tests took in the last run that ran them, kept in
pytest's cache (.pytest_cache); a test with no record counts as a typical one, plus what its
costly fixture or run is declared to take when it is one of DECLARED_SECONDS (a clean checkout
has no cache). Within a file the tests keep their order. The order only decides which file runs
first: no test depends on it, and without the cache (`-p no:cacheprovider`) the declared costs
alone decide it.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

CACHE_KEY = "attnquiz/test-seconds"

# A test with no recorded time: most tests take a few milliseconds (the median is under 5 ms).
TYPICAL_TEST_SECONDS = 0.005

# Tests (or whole files) that cost one fixture or one run of many seconds, with what each takes in
# a clean checkout on a quiet 2-core machine, setup included (measured 2026-11-24 with
# `pytest -p no:randomly --durations=200` in a fresh clone). Used only for a file the cache knows
# nothing of, and only when such a test is selected; a run records the real figures, so a cheaper
# fixture reorders the next run by itself.
KERNEL = "tests/attention_ref/test_kernel"
DECLARED_SECONDS = {
    # a file (its fixture serves every test) or file::test, and its seconds
    f"{KERNEL}.py": 16.0,  # the Numba kernel's cold compile (13 s), then 126 cases
    f"{KERNEL}_resources.py::test_the_avx2_build_of_the_kernel_agrees_with_the_reference": 8.5,
    "tests/attention_ref/test_corpus.py::test_submit_agrees_with_a_careful_grader": 23.0,
    "tests/attention_ref/test_installed_submit.py": 9.0,  # the wheel built and installed
    "tests/engine/drills/test_step_table.py::"
    "test_the_checker_agrees_with_the_examiner_on_the_step_table": 10.0,
    "tests/engine/checking/test_checking_agreement.py::"
    "test_the_checker_agrees_with_a_fair_examiner": 4.0,
    "tests/engine/bank/test_lint.py::test_the_shipped_banks_lint_clean_and_without_warnings": 3.5,
}


def _declared(nodeid: str) -> str | None:
    """The entry of DECLARED_SECONDS this test falls under, if any."""
    for name in DECLARED_SECONDS:
        if nodeid == name or nodeid.startswith((name + "::", name + "[")):
            return name
    return None


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def _recorded(config: pytest.Config) -> dict[str, float]:
    """The recorded seconds per test: the controller reads the cache and hands its copy to each
    xdist worker, so every worker orders its collection alike (xdist requires the same order)."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        seconds = workerinput.get(CACHE_KEY, {})
    else:
        cache = getattr(config, "cache", None)  # None under `-p no:cacheprovider`
        seconds = cache.get(CACHE_KEY, {}) if cache is not None else {}
    return seconds if isinstance(seconds, dict) else {}


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist's controller, as it starts each worker: pass on the recorded times."""
    node.workerinput[CACHE_KEY] = _recorded(node.config)


@pytest.hookimpl(trylast=True)  # after `-m`/`-k` have deselected: the cost of what will run
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    recorded = _recorded(config)
    cost: dict[str, float] = defaultdict(float)
    # A declared figure counts while none of the tests it covers has a record of its own (a run
    # of the quick subset records a file's quick tests, not its costly fixture).
    declared: dict[str, str] = {}
    recorded_names: set[str] = set()
    for item in items:
        path = _file_of(item.nodeid)
        seconds = recorded.get(item.nodeid)
        name = _declared(item.nodeid)
        if name is not None:
            declared[name] = path
        if isinstance(seconds, (int, float)):
            cost[path] += seconds
            if name is not None:
                recorded_names.add(name)
        else:
            cost[path] += TYPICAL_TEST_SECONDS
    for name, path in declared.items():
        if name not in recorded_names:
            cost[path] += DECLARED_SECONDS[name]
    first_seen: dict[str, int] = {}
    for item in items:
        first_seen.setdefault(_file_of(item.nodeid), len(first_seen))
    # A file's tests stay together and in their order; equal costs keep the collection order.
    items.sort(key=lambda item: (-cost[_file_of(item.nodeid)], first_seen[_file_of(item.nodeid)]))


class _Timer:
    """Adds up each test's setup, call and teardown seconds as the reports come in (under xdist,
    in the controller), and writes them to the cache at the end of the run."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] += report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        cache = getattr(session.config, "cache", None)
        if cache is None or not self.seconds:
            return
        # Tests that did not run this time (another selection) keep their earlier figures.
        merged = {**_recorded(session.config), **{k: round(v, 3) for k, v in self.seconds.items()}}
        cache.set(CACHE_KEY, merged)


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # the controller, or the one process under `-n 0`
        config.pluginmanager.register(_Timer(), "attnquiz-test-seconds")
