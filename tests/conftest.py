"""Shared fixtures: every test gets its own store folder, with the tiny fixture course as a user
set, and `run`, the command line run in-process."""

from __future__ import annotations

import gc
import importlib
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from typer.testing import CliRunner

if TYPE_CHECKING:
    from engine.checking.worker.bounded import BoundedChecker

FIXTURES = Path(__file__).parent / "fixtures"

# the costliest test files first; one thread watching for time-outs
pytest_plugins = ("tests.run_order", "tests.watchdog")


def pytest_configure(config: pytest.Config) -> None:
    _ctrl_c_reaches_the_processes()
    _one_blas_thread()
    _bytecode_written(config)


def _ctrl_c_reaches_the_processes() -> None:
    """A test run started with Ctrl-C ignored (a script's background job: `pytest &`) would
    pass that on to every process a test starts, and each test that presses Ctrl-C would wait
    until its time-out for an exit that never comes: take Ctrl-C back, as a terminal has it."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _one_blas_thread() -> None:
    """NumPy's BLAS on one thread in every test process and every process a test starts (the
    checker's worker and the sandbox set their own): the tests run one process per core, so
    more threads only wait for a core, and OpenBLAS's waiting threads spin, burning CPU time the
    other tests need. Skipped when the variable is set (a run that wants its own)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _bytecode_written(config: pytest.Config) -> None:
    """With bytecode writing turned off (PYTHONDONTWRITEBYTECODE), every xdist worker and every
    Python process a test starts (the command line, the checking worker) compiles each of this
    checkout's modules it imports from source, and pytest rewrites every test module afresh:
    seconds of CPU per process. For this test run only (the variable is dropped for the
    processes it starts, not for the shell), write bytecode as Python does by default: this
    checkout's beside its sources in `__pycache__` (which git ignores; Numba keeps the kernel's
    cache there too), where processes share it and later runs reuse it, while the installed
    packages' bytecode, which pip wrote as it installed them, is read as it is. (A cache folder
    of its own, PYTHONPYCACHEPREFIX, would make every process ignore pip's bytecode: a clean
    checkout compiled some 2,600 library modules again, 6 s of CPU, in each worker at once.)
    Skipped when bytecode is written anyway or a cache folder is chosen."""
    if not sys.dont_write_bytecode or sys.pycache_prefix:
        return
    if hasattr(config, "workerinput"):  # an xdist worker: the controller has done it
        return
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    """Each xdist worker collects the whole suite, and in a clean checkout that means rewriting
    the asserts of every test module and compiling it and what it imports (~4 s of CPU): two
    workers doing the same work at once. Worker k of n first imports the test modules from
    k/n of the way through to the end, while worker 0 collects from the start: each module's
    bytecode is written by one worker and read by the other, so the work is shared. Only for a
    run of the whole suite; an import that fails here fails again, and is reported, when pytest
    collects the module. Nothing else changes: the tests and their order are pytest's."""
    workerinput = getattr(session.config, "workerinput", None)
    if workerinput is None:
        return
    count = int(workerinput["workercount"])
    index = int(str(workerinput["workerid"]).removeprefix("gw")) % count
    tests = Path(__file__).resolve().parent
    invoked = session.config.invocation_params.dir
    if index == 0 or [(invoked / arg).resolve() for arg in session.config.args] != [tests]:
        return
    modules = sorted(tests.rglob("test_*.py"))
    for path in modules[len(modules) * index // count :]:
        name = ".".join(path.relative_to(tests.parent).with_suffix("").parts)
        try:
            importlib.import_module(name)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # a module-level skip is a BaseException too
            pass


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Everything loaded so far (the libraries, the test modules, thousands of collected tests)
    lives until the process ends: out of the garbage collector's sight, its full collections
    no longer walk it again each time (they did a dozen times per worker)."""
    gc.freeze()


# Where the stores live when the machine has a file system in memory: SQLite syncs the store to
# disk at each commit (synchronous = FULL) and a new store commits a dozen times, which on a busy
# disk costs 0.1 s of waiting per store (a few ms in memory). What the tests check of a store
# (a killed process loses no committed answer) holds the same in memory; only a power cut,
# which no test makes, tells the two apart.
MEMORY_FOLDER = Path("/dev/shm")
MEMORY_FREE_BYTES = 256 * 2**20


@pytest.fixture(scope="session")
def store_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """This test process's folder of store folders: in memory if the machine has room there
    (removed at the end), else under the run's base temporary folder."""
    try:
        free = os.statvfs(MEMORY_FOLDER)
        roomy = free.f_bavail * free.f_frsize >= MEMORY_FREE_BYTES
    except OSError:
        roomy = False
    if not roomy or not os.access(MEMORY_FOLDER, os.W_OK | os.X_OK):
        yield tmp_path_factory.getbasetemp()
        return
    root = Path(tempfile.mkdtemp(prefix="attnquiz-stores-", dir=MEMORY_FOLDER))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(autouse=True)
def store_home(store_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # A fresh folder, made directly: `tmp_path` numbers its folders by listing every earlier
    # one, which costs milliseconds per test in a suite of thousands, and most tests never ask
    # for it.
    home = Path(tempfile.mkdtemp(prefix="store-", dir=store_root)) / "home"
    (home / "quizzes").mkdir(parents=True)
    shutil.copy(FIXTURES / "quizzes" / "demo.yaml", home / "quizzes" / "demo.yaml")
    monkeypatch.setenv("ATTNQUIZ_HOME", str(home))
    monkeypatch.delenv("ATTNQUIZ_NOW", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    # A checker that starts slowly on a loaded machine must not change a verdict under test (it
    # would read "could not check in time"); the tests of the start limit set their own.
    monkeypatch.setenv("ATTNQUIZ_CHECK_START_TIMEOUT", "120")
    return home


_WARM: list[BoundedChecker] = []


def warm_checker() -> BoundedChecker:
    """One bounded checker for the whole test run, its worker kept warm between the tests that
    grade (killed at exit, as every checker's worker is)."""
    if not _WARM:
        from engine.checking.worker.bounded import BoundedChecker

        _WARM.append(BoundedChecker())
    return _WARM[0]


class LentChecker:
    """The warm checker lent to one command run: it checks and starts, but closing it is the
    test run's business, not the command's."""

    def __init__(self, checker: BoundedChecker) -> None:
        self._checker = checker

    def __getattr__(self, name: str) -> Any:
        return getattr(self._checker, name)

    def close(self) -> None:
        pass


@pytest.fixture(autouse=True)
def warm_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    """A command run in this process without a checker of its own gets the warm one (a real
    process starts and stops its own; test_worker_lifecycle.py runs those)."""
    from engine.commands import frame

    monkeypatch.setattr(frame, "new_checker", lambda: LentChecker(warm_checker()))


@pytest.fixture
def checker() -> BoundedChecker:
    """The test run's warm bounded checker, as the command line passes one to what grades."""
    return warm_checker()


@pytest.fixture(scope="session")
def flash_kernel() -> None:
    """The Numba flash kernel ready in this process for both dtypes, compiled once per test run.

    A cold compile costs ~7 s of CPU (a fresh checkout's cache is always cold), and with xdist
    every worker that runs a kernel test would otherwise compile the same kernel at the same
    time. Under a file lock beside Numba's on-disk cache the first worker compiles and writes
    the cache; the others wait on the lock and then load the kernel from it (under a second)."""
    import fcntl

    import numpy as np

    from attention_ref import kernel

    folder = Path(kernel._flash_core._cache._cache_path)  # where Numba reads and writes it
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "kernel-compile.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released as the file closes
        for dtype in (np.float32, np.float64):
            x = np.ones((2, 3), dtype=dtype)
            kernel.flash_attention(x, x, x, x[:, :2] > 0, causal=True)


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The attnquiz wheel built from this checkout (`pip wheel`), once per test run: with
    xdist, the first worker to ask builds it in the run's own temporary folder, which the
    workers share, under a file lock; the others wait on the lock and take the same file."""
    import fcntl
    import subprocess

    base = tmp_path_factory.getbasetemp()  # a worker's is a folder of the run's own
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "wheel"
    folder.mkdir(exist_ok=True)
    with open(folder / "build.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released as the file closes
        if not any(folder.glob("attnquiz-*.whl")):
            root = Path(__file__).resolve().parent.parent
            command = [sys.executable, "-m", "pip", "wheel", str(root), "--no-deps", "-q"]
            build = subprocess.run(
                [*command, "-w", str(folder)], capture_output=True, text=True, timeout=600
            )
            assert build.returncode == 0, build.stdout + build.stderr
        (built,) = folder.glob("attnquiz-*.whl")
    return built


@dataclass(frozen=True)
class CliResult:
    """What a run of `attnquiz` left behind, named as `subprocess.CompletedProcess` names it."""

    returncode: int
    stdout: str
    stderr: str


Run = Callable[..., CliResult]


def run_cli(*args: str, input: str = "", env: Mapping[str, str | None] | None = None) -> CliResult:
    """Run `attnquiz ARGS` in this process, as the console script does (`engine.cli.main`, with
    its error edge and exit codes), with `input` as a non-terminal standard input, stdout and
    stderr captured apart, and `env` set (a None value unsets a variable) for the run only."""
    from engine.cli import main

    runner = CliRunner()
    overrides: dict[str, str | None] = {"COLUMNS": "100", **(env or {})}
    # The checker stays warm from one run to the next (a real process starts its own and stops
    # it as it ends; that is tested in real processes in test_worker_lifecycle.py): its SymPy
    # start-up would otherwise be most of the time of every run that grades.
    with runner.isolation(input=input, env=overrides) as (out, err, _):
        try:
            code = main(list(args), checker=warm_checker())
        except SystemExit as exc:  # e.g. --show-completion; the interpreter would exit so
            code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            stdout, stderr = out.getvalue(), err.getvalue()  # before the streams are closed
    return CliResult(
        returncode=code,
        stdout=stdout.decode("utf-8", "replace"),
        stderr=stderr.decode("utf-8", "replace"),
    )


@pytest.fixture
def run(store_home: Path) -> Run:
    """The command line in-process (Typer's CliRunner): exit code, stdout and stderr, as a
    script would see them. Use a real process only where the process itself is the point."""
    return run_cli
