"""Shared pieces for the sandbox tests: inputs, the outside world to watch, leftover checks."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attention_ref.reference import attention as reference_attention
from attention_ref.sandbox import CallResult, Limits, Sandbox, SandboxReport
from attention_ref.sandbox.processes import processes_of_uid

HERE = Path(__file__).parent
HOSTILE = HERE.parent / "submissions" / "hostile"
BENIGN = HERE / "benign"
# Small bounds keep the suite quick; MARGIN covers killing, sweeping and reaping.
LIMITS = Limits(memory_bytes=1 * 2**30, seconds_per_call=2.0, max_processes=8)
MARGIN = 3.0

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="a private uid needs root")


def inputs(seed: int = 0, t_q: int = 6, t_k: int = 5, d_k: int = 4, d_v: int = 3):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(t_q, d_k)), rng.normal(size=(t_k, d_k)), rng.normal(size=(t_k, d_v))


def expected(q: Any, k: Any, v: Any) -> Any:
    return reference_attention(q, k, v)


@dataclass
class Outcome:
    """What one sandbox run produced, plus how long each call took in the parent."""

    results: list[CallResult]
    elapsed: list[float]
    report: SandboxReport
    uid: int | None
    workdir_gone: bool


def run_submission(
    path: Path,
    function: str = "attention",
    calls: int = 1,
    limits: Limits = LIMITS,
    during: Callable[[Sandbox], None] | None = None,
) -> Outcome:
    """Grade-like run: enter, call `calls` times, exit; then check nothing is left behind."""
    box = Sandbox(path, function, limits)
    results, elapsed = [], []
    with box:
        workdir = box._workdir
        for _ in range(calls):
            q, k, v = inputs()
            start = time.monotonic()
            results.append(box.call(q, k, v))
            elapsed.append(time.monotonic() - start)
        if during is not None:
            during(box)
    assert_nothing_left(box)
    return Outcome(
        results, elapsed, box.report(), box.uid, workdir is not None and not workdir.exists()
    )


def assert_nothing_left(box: Sandbox) -> None:
    """No live process of the sandbox's uid, and its first process is reaped."""
    if box.uid is not None:
        assert processes_of_uid(box.uid) == []
    assert box.pid is not None
    assert box._process is not None and box._process.returncode is not None


def with_params(tmp_path: Path, name: str, params: dict[str, Any]) -> Path:
    """A copy of a hostile submission with its PARAMS filled in."""
    text = (HOSTILE / name).read_text()
    assert "PARAMS: dict = {}" in text
    copy = tmp_path / "submitted" / name
    copy.parent.mkdir(exist_ok=True)
    copy.write_text(text.replace("PARAMS: dict = {}", f"PARAMS: dict = {params!r}"))
    return copy


def snapshot(*roots: Path) -> dict[str, tuple[int, int, bytes]]:
    """Every file and folder under `roots`: mode, mtime and content."""
    seen: dict[str, tuple[int, int, bytes]] = {}
    for root in roots:
        for path in [root, *sorted(root.rglob("*"))]:
            info = path.lstat()
            content = path.read_bytes() if path.is_file() else b""
            seen[str(path)] = (info.st_mode, info.st_mtime_ns, content)
    return seen


@dataclass
class Outside:
    """Files outside the sandbox that hostile code aims at: HOME, the store, a bystander.

    They are world-readable and world-writable on purpose, so that the file permissions would
    let a stranger uid in: what keeps the submission out is Landlock alone.
    """

    home: Path
    store: Path
    bystander: Path
    secret: Path

    def snapshot(self) -> dict[str, tuple[int, int, bytes]]:
        return snapshot(self.home, self.store, self.bystander.parent)


@pytest.fixture
def outside(monkeypatch: pytest.MonkeyPatch) -> Iterator[Outside]:
    base = Path(tempfile.mkdtemp(prefix="attnquiz-outside-", dir="/tmp"))
    try:
        home, store, elsewhere = base / "home", base / "store", base / "elsewhere"
        for folder in (home, store, elsewhere):
            folder.mkdir()
        (home / ".bashrc").write_text("export PS1='$ '\n")
        (store / "attnquiz.sqlite3").write_bytes(b"SQLite format 3\x00 pretend store")
        bystander = elsewhere / "notes.txt"
        bystander.write_text("the learner's notes\n")
        secret = elsewhere / "secret.txt"
        secret.write_text("TOP-SECRET-ANSWER-KEY\n")
        os.chmod(base, 0o755)
        for path in base.rglob("*"):
            os.chmod(path, 0o777 if path.is_dir() else 0o666)
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.setenv("ATTNQUIZ_HOME", str(store))
        world = Outside(home, store, bystander, secret)
        before = world.snapshot()
        yield world
        assert world.snapshot() == before, "something outside the sandbox changed"
    finally:
        shutil.rmtree(base)
