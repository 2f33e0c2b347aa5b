"""The template process every sandbox of a grading thread is forked from: what it holds, and
that nothing about it can hold or hurt the grader (a pytest-xdist worker, in the test run)."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import numpy as np
import pytest

import attention_ref.sandbox.template as template_module
from attention_ref.sandbox import Sandbox
from attention_ref.sandbox.isolation import others_can_enter
from attention_ref.sandbox.processes import processes_of_uid

from .conftest import BENIGN, LIMITS, inputs, needs_root

# A sandbox's end that takes this long has hung; a bound this loose is no timing assertion.
HUNG = 120.0


def _status_field(pid: int, key: str) -> str:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name == key:
            return value.strip()
    raise AssertionError(f"no {key} in /proc/{pid}/status")


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


def test_the_template_holds_nothing_of_the_graders_and_runs_alone() -> None:
    # Its descriptors: /dev/null for 0-2 and its own socket; never the grader's pipes (a
    # pytest-xdist worker talks to its controller over its inherited standard streams).
    with Sandbox(BENIGN / "correct.py", "attention", LIMITS) as box:
        assert box._process is not None
        template = box._process.template
        fds = {
            int(fd): os.readlink(f"/proc/{template}/fd/{fd}")
            for fd in os.listdir(f"/proc/{template}/fd")
        }
        # One thread, so forking it copies no lock another thread holds.
        assert _status_field(template, "Threads") == "1"
        # Its own session and group: a kill by its group id reaches no process of the grader.
        assert os.getsid(template) == template and os.getpgid(template) == template
        assert os.getpgid(box._process.pid) == box._process.pid  # the sandbox leads its own
    assert {fd: target for fd, target in fds.items() if fd <= 2} == dict.fromkeys(
        (0, 1, 2), os.devnull
    )
    others = [target for fd, target in fds.items() if fd > 2]
    sockets = [target for target in others if target.startswith("socket:")]
    # Besides its socket, only the import folders it opened for the sandboxes' private uid:
    # folders that uid could not enter (Python under a 0700 home).
    folders = [target for target in others if not target.startswith("socket:")]
    assert len(sockets) == 1, fds
    assert all(os.path.isdir(f) and not others_can_enter(f) for f in folders), fds


@needs_root
@pytest.mark.slow  # waits for the template's answer to time out
def test_a_template_that_stops_answering_cannot_hold_the_grader(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Were any wait for the template unbounded, a stalled template would hang the grader
    # (in a test run, until pytest-timeout's thread ends the whole xdist worker with
    # os._exit, which the controller reports as "node down: Not properly terminated").
    monkeypatch.setattr(template_module, "ANSWER_SECONDS", 1.0)
    seen: dict[str, object] = {}

    def grade() -> None:
        box = Sandbox(BENIGN / "correct.py", "attention", LIMITS)
        with box:
            assert box.call(*inputs()).status == "ok"
            assert box._process is not None
            seen["template"] = box._process.template
            seen["uid"] = box.uid
            os.kill(box._process.template, signal.SIGSTOP)
        seen["ended"] = True

    thread = threading.Thread(target=grade, daemon=True)
    thread.start()
    thread.join(HUNG)
    template = seen.get("template")
    try:
        assert seen.get("ended"), "ending the sandbox hung on a stalled template"
        assert isinstance(template, int) and _gone(template)  # ended, not asked again
        uid = seen["uid"]
        assert isinstance(uid, int) and processes_of_uid(uid) == []
    finally:
        if isinstance(template, int) and not _gone(template):
            os.kill(template, signal.SIGKILL)


def test_a_forked_copy_of_the_grader_leaves_the_template_alone() -> None:
    # A copy made by fork() (without exec) inherits the Template object; it must neither use
    # the parent's template (their requests would cross) nor kill it.
    with Sandbox(BENIGN / "correct.py", "attention", LIMITS) as box:
        assert box._process is not None
        owner = box._process._owner
    parents_end = owner._control.dup()  # the grader's own end, which a fork leaves open
    try:
        owner._owner_pid = os.getpid() + 1  # as seen from a copy: made by another process
        assert not owner.alive()
        owner.close()  # what the copy does with it, at its end or when it wants a template
        assert owner.process.poll() is None  # the grader's template still runs
    finally:
        parents_end.close()
        owner._owner_pid = os.getpid()
        owner.close()
    assert owner.process.poll() is not None


# Where Numba caches in a sandbox: its setting when the file is imported (before any compile
# reads the environment again), and the folder of a `cache=True` function compiled (and so
# cached) there, as bytes (the channel carries arrays only).
_WHERE_NUMBA_CACHES = """
import numba
import numpy as np
from numba.core import config

SETTING = config.CACHE_DIR


@numba.njit(cache=True)
def _plus_one(x):
    return x + 1.0


def where(x):
    _plus_one(x)
    text = SETTING + "\\n" + _plus_one._cache._cache_path
    return np.frombuffer(text.encode(), dtype=np.uint8)
"""


def _maps(pid: int) -> str:
    return Path(f"/proc/{pid}/maps").read_text()


@pytest.mark.parametrize("own_packages", [False, True], ids=["submission", "own-code"])
def test_numba_code_forks_from_a_numba_template_and_caches_only_in_its_folder(
    tmp_path: Path, own_packages: bool
) -> None:
    source = tmp_path / "where_numba_caches.py"
    source.write_text(_WHERE_NUMBA_CACHES, encoding="utf-8")
    carried = {"numba-cache/carried.txt": b"a file of attnquiz's own cache"}
    with Sandbox(BENIGN / "correct.py", "attention", LIMITS) as plain:
        assert plain._process is not None
        plain_template = plain._process.template
        assert "llvmlite" not in _maps(plain_template)  # NumPy code never pays for Numba
    box = Sandbox(
        source,
        "where",
        LIMITS,
        numba=True,
        own_packages=own_packages,
        files=carried if own_packages else None,
    )
    with box:
        assert box._process is not None and box._workdir is not None
        template = box._process.template
        assert template != plain_template and "llvmlite" in _maps(template)
        # Numba started, still one thread: forking it copies no lock another thread holds.
        assert _status_field(template, "Threads") == "1"
        result = box.call(np.zeros(2))
        workdir = str(box._workdir)
    assert result.status == "ok", result.error
    setting, folder = bytes(result.value).decode().split("\n")
    # The settings Numba read in the template are read again in the sandbox: attnquiz's own
    # code finds its carried cache; a submission caches next to its copy, in its own folder.
    own_cache = os.path.join(workdir, "numba-cache")
    assert setting == (own_cache if own_packages else "")
    if own_packages:
        assert folder.startswith(own_cache + os.sep), (folder, workdir)
    else:
        assert folder == os.path.join(workdir, "__pycache__")
