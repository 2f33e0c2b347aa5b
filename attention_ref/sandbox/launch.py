"""Starting a sandbox: a private folder with a copy of the submission, and the boot process.

The child is a `python -I -B` in its own session, with an empty environment but for a few
harmless variables (one thread per numeric library), in a fresh folder that holds its HOME, its
TMPDIR and the copy of the submission: forked from a template interpreter that has imported the
harness and NumPy once (`template`), rather than started afresh. When the parent runs as root,
the folder belongs to a private uid picked for this run, which the child switches to. The first
frame the parent sends (`hello_header`) tells the child everything else: what to import, its
limits, which folders no read grant may contain.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import attention_ref.sandbox.processes as processes
from attention_ref.sandbox.isolation import others_can_enter
from attention_ref.sandbox.limits import Limits
from attention_ref.sandbox.template import (
    SandboxProcess,
    TemplateError,
    discard_this_threads_template,
    template_for_this_thread,
)

# Starting Python and importing NumPy is not the submission's time; it gets its own bound.
STARTUP_SECONDS = 60.0
PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
_THREAD_VARIABLES = (
    "OPENBLAS_NUM_THREADS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMBA_NUM_THREADS",
)


@dataclass(frozen=True)
class Workdir:
    """The sandbox's private folder, the submission's copy in it, and its owner (None: us)."""

    path: Path
    submission: Path
    uid: int | None


def prepare_workdir(source: Path, source_text: bytes) -> Workdir:
    """A fresh folder with `home/`, `tmp/` and a copy of the submission, owned by a private uid
    when running as root. Nothing is left behind if preparing it fails."""
    as_root = os.geteuid() == 0
    base = tempfile.gettempdir()
    if as_root and not others_can_enter(base):
        base = "/tmp"
    path = Path(tempfile.mkdtemp(prefix="attnquiz-sandbox-", dir=base))
    try:
        home, tmp = path / "home", path / "tmp"
        home.mkdir(mode=0o700)
        tmp.mkdir(mode=0o700)
        copy = path / (source.stem + ".py")
        copy.write_bytes(source_text)
        uid = None
        if as_root:
            uid = processes.pick_private_uid()
            for entry in (path, home, tmp, copy):
                os.chown(entry, uid, uid)
    except BaseException:
        remove_tree(path)
        raise
    return Workdir(path, copy, uid)


def spawn(workdir: Workdir, *, numba: bool = False) -> tuple[SandboxProcess, socket.socket]:
    """Start the sandbox's first process in its own session, forked from this thread's template
    (started here the first time; `numba`: the one that has started Numba); the parent's end of
    the private socket."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        **dict.fromkeys(_THREAD_VARIABLES, "1"),
    }
    parent_end, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with child_end:
            for attempt in (1, 2):
                template = template_for_this_thread(
                    [sys.executable, "-I", "-B"], env, PACKAGE_ROOT, numba=numba
                )
                try:
                    process = template.fork(
                        child_end,
                        cwd=str(workdir.path),
                        home=str(workdir.path / "home"),
                        tmpdir=str(workdir.path / "tmp"),
                        timeout=STARTUP_SECONDS,
                    )
                    break
                except TemplateError:
                    discard_this_threads_template(numba=numba)  # start a fresh one, once
                    if attempt == 2:
                        raise
    except BaseException:
        parent_end.close()
        raise
    return process, parent_end


def hello_header(
    workdir: Workdir,
    function: str,
    limits: Limits,
    protect: list[str],
    source: Path,
    process: SandboxProcess,
) -> dict[str, Any]:
    """The first frame's header: everything the child needs to confine itself and import."""
    return {
        "kind": "hello",
        "uid": workdir.uid,
        "gid": workdir.uid,
        "workdir": str(workdir.path),
        "submission": str(workdir.submission),
        "function": function,
        "limits": limits.to_json(),
        "protected": [*default_protected(source), *protect],
        "package_root": PACKAGE_ROOT,
        # The process the supervisor dies with (the template it was forked from).
        "parent_pid": process.template,
    }


def describe_isolation(reported: dict[str, Any], uid: int | None, limits: Limits) -> dict[str, str]:
    """What confines the sandbox: what the child reported, and what the parent adds."""
    isolation = {str(k): str(v) for k, v in reported.items()}
    isolation["lifetime"] = "own session; at the end its process group is SIGKILLed" + (
        f" and every process of uid {uid} is killed" if uid else ""
    )
    isolation["output"] = (
        f"stdout and stderr drained continuously, last {limits.max_output_bytes} bytes of each kept"
    )
    isolation["channel"] = (
        "private socket pair; replies carry outputs only, framed with a per-run token"
    )
    return isolation


def default_protected(source: Path) -> list[str]:
    """Folders no read grant may contain: HOME, the store, the submission's own folder, cwd."""
    from platformdirs import user_data_dir

    paths = [Path.home(), Path(user_data_dir("attnquiz", appauthor=False)), source.parent]
    if os.environ.get("ATTNQUIZ_HOME"):
        store = Path(os.environ["ATTNQUIZ_HOME"])
        with contextlib.suppress(RuntimeError):  # `~user` of no known user: a path under cwd
            store = store.expanduser()
        paths.append(store)
    paths.append(Path.cwd())
    return [str(p.resolve()) for p in paths]


def remove_tree(path: Path) -> None:
    try:
        shutil.rmtree(path)
    except OSError:
        # The submission may have closed its own folders (chmod 000); open them up and retry.
        for folder, _, _ in os.walk(path):
            with contextlib.suppress(OSError):
                os.chmod(folder, 0o700)
        shutil.rmtree(path, ignore_errors=True)
