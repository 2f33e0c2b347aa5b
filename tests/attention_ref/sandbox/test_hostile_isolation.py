"""Hostile submissions against the walls Landlock and rlimits alone do not build.

Unix sockets at a path, IPC objects that outlive the process, memory held outside the address
space limit, files that fill the disk together, and forged frames on the channel. Each test
attacks a real target (a listening socket, the host's IPC namespace, the kernel's memory) and
checks what the attacker got: nothing, and a verdict.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from attention_ref.sandbox import Limits

from .conftest import HOSTILE, needs_root, run_submission, with_params

# Every test runs hostile code in the sandbox (real processes, mounts, memory limits).
pytestmark = pytest.mark.slow


def test_no_new_namespace_is_entered_and_threads_still_start(tmp_path: Path) -> None:
    # A user namespace would give the submission every capability inside it (chroot, mounts)
    # and the kernel's widest attack surface; the seccomp filter refuses namespace flags.
    outcome = run_submission(HOSTILE / "new_namespaces.py")
    (result,) = outcome.results
    assert result.status == "ok", (result.error, outcome.report.stdout_tail)
    printed = outcome.report.stdout_tail
    for attempt in ("unshare user", "unshare user+mount", "unshare user+net", "clone user"):
        assert f"{attempt}: " in printed
    assert "namespaces" in outcome.report.isolation["seccomp"]


def test_no_scheduling_of_itself_or_another_process_is_changed(tmp_path: Path) -> None:
    # Without a private uid (attnquiz not run as root) every sandbox and attnquiz itself share
    # the learner's uid: a submission could renice the reference timed next to it, or leave the
    # core both are pinned to. The seccomp filter denies these calls whatever the uid.
    outcome = run_submission(HOSTILE / "scheduling.py")
    (result,) = outcome.results
    assert result.status == "ok", (result.error, outcome.report.stdout_tail)
    printed = outcome.report.stdout_tail
    for attempt in (
        "affinity of itself",
        "affinity of another",
        "priority of another",
        "priority of its user",
        "policy of another",
        "limits of another",
    ):
        assert f"{attempt}: Permission denied" in printed, printed
    assert "own limits: ok" in printed


@pytest.fixture
def listeners() -> Iterator[dict[str, socket.socket | str]]:
    """A stream and a datagram listener at world-writable paths, and an abstract listener."""
    folder = Path(tempfile.mkdtemp(prefix="attnquiz-listeners-", dir="/tmp"))
    os.chmod(folder, 0o777)
    stream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dgram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    name = f"attnquiz-test-{os.getpid()}"
    try:
        stream.bind(str(folder / "stream.sock"))
        dgram.bind(str(folder / "dgram.sock"))
        abstract.bind("\0" + name)
        for path in folder.iterdir():
            os.chmod(path, 0o777)
        stream.listen(8)
        abstract.listen(8)
        for listener in (stream, dgram, abstract):
            listener.settimeout(0.2)
        yield {
            "stream": stream,
            "dgram": dgram,
            "abstract": abstract,
            "params": {
                "stream": str(folder / "stream.sock"),
                "dgram": str(folder / "dgram.sock"),
                "abstract": name,
            },
        }
    finally:
        for listener in (stream, dgram, abstract):
            listener.close()
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()


def test_no_unix_socket_at_a_path_or_abstract_is_reached(listeners, tmp_path: Path) -> None:
    params = listeners["params"]
    outcome = run_submission(with_params(tmp_path, "unix_socket.py", params))
    (result,) = outcome.results
    assert result.status == "ok", result.error
    for name in ("stream", "abstract"):
        with pytest.raises(TimeoutError):
            listeners[name].accept()
    with pytest.raises(TimeoutError):
        listeners["dgram"].recv(100)
    printed = outcome.report.stdout_tail
    for attempt in ("path stream", "path datagram", "abstract stream", "datagram pair"):
        assert f"{attempt}: " in printed
    assert "seccomp" in outcome.report.isolation


def _ipcs() -> str:
    return subprocess.run(["ipcs"], capture_output=True, text=True, check=True).stdout


@contextlib.contextmanager
def _message_queues() -> Iterator[Path]:
    """The host's POSIX message queues: /dev/mqueue, or the mqueue filesystem mounted here."""
    if Path("/dev/mqueue").is_dir():
        yield Path("/dev/mqueue")
        return
    if os.geteuid() != 0:
        pytest.skip("no /dev/mqueue, and mounting one needs root")
    point = Path(tempfile.mkdtemp(prefix="attnquiz-mqueue-"))
    subprocess.run(["mount", "-t", "mqueue", "mqueue", str(point)], check=True)
    try:
        yield point
    finally:
        subprocess.run(["umount", str(point)], check=True)
        point.rmdir()


def test_ipc_objects_do_not_outlive_grading() -> None:
    with _message_queues() as queues:
        ipcs_before, queues_before = _ipcs(), sorted(os.listdir(queues))
        outcome = run_submission(HOSTILE / "ipc_objects.py")
        assert _ipcs() == ipcs_before
        assert sorted(os.listdir(queues)) == queues_before
    (result,) = outcome.results
    assert result.status == "ok", result.error
    for call in ("shmget", "msgget", "semget", "mq_open"):
        assert f"{call}: Permission denied" in outcome.report.stdout_tail


@pytest.mark.parametrize("how", ["shm", "memfd"])
def test_memory_outside_the_address_space_cannot_be_held(how: str, tmp_path: Path) -> None:
    source = with_params(tmp_path, "hidden_memory.py", {"how": how, "total": 3 * 2**30})
    outcome = run_submission(source, limits=Limits(memory_bytes=2 * 2**30, seconds_per_call=20))
    (result,) = outcome.results
    assert result.status in ("error", "memory")
    assert result.error is not None and "held" not in result.error
    assert "Permission denied" in result.error


@needs_root
def test_processes_together_cannot_hold_more_than_the_memory_limit(tmp_path: Path) -> None:
    # Three processes of 600 MiB each, every one within its own 1 GiB address space.
    # Reclaim may stall a while before the OOM killer acts: a generous bound, not a race.
    limits = Limits(memory_bytes=2**30, max_disk_bytes=2**27, seconds_per_call=90)
    source = with_params(tmp_path, "hidden_memory.py", {"how": "processes", "total": 1800 * 2**20})
    outcome = run_submission(source, limits=limits)
    assert not outcome.report.isolation["memory cgroup"].startswith("unavailable")
    (result,) = outcome.results
    assert result.status == "memory", result.error
    assert result.error is not None and "held" not in result.error


@needs_root
def test_files_written_together_are_bounded_not_only_each_file(tmp_path: Path) -> None:
    # Five files of 200 MiB: each is under the per-file limit, together over the 512 MiB bound.
    source = with_params(tmp_path, "hidden_memory.py", {"how": "disk", "total": 10**9})
    outcome = run_submission(source, limits=Limits(memory_bytes=2**30, seconds_per_call=20))
    assert outcome.report.isolation["disk"].startswith("all files together at most")
    (result,) = outcome.results
    assert result.status == "error"
    assert result.error is not None and "No space left on device" in result.error


_FORGED_HEADERS = {
    "deep list nesting": "[" * 100_000,
    "deep object nesting": '{"a":' * 50_000 + "1" + "}" * 50_000,
    "not an object": "[1, 2]",
    "not JSON": "{'kind': 'result'}",
    "not UTF-8 text": "\udcff",
    "empty huge shape": (
        '{"kind":"result","status":"ok","value":{"form":"array","arrays":'
        '[{"dtype":"<f8","shape":[549755813888,549755813888,0]}]}}'
    ),
    "huge shape": (
        '{"kind":"result","status":"ok","value":{"form":"array","arrays":'
        '[{"dtype":"<f8","shape":[4294967296,4294967296]}]}}'
    ),
    "negative size": (
        '{"kind":"result","status":"ok","value":{"form":"array","arrays":'
        '[{"dtype":"<f8","shape":[-1]}]}}'
    ),
    "object dtype": (
        '{"kind":"result","status":"ok","value":{"form":"array","arrays":'
        '[{"dtype":"|O8","shape":[1]}]}}'
    ),
    "value not an object": '{"kind":"result","status":"ok","value":[[[1]]]}',
    "arrays not a list": (
        '{"kind":"result","status":"ok","value":{"form":"array","arrays":"many"}}'
    ),
    "unknown status": '{"kind":"result","status":{"ok":true}}',
    "forged death": '{"kind":"ended","signal":1e400,"exit_code":[1]}',
}


@pytest.mark.parametrize("name", sorted(_FORGED_HEADERS))
def test_a_forged_frame_only_yields_a_verdict(name: str, tmp_path: Path) -> None:
    header = _FORGED_HEADERS[name]
    params = {"header": header}
    if name == "forged death":
        params["seq"] = 0xFFFFFFFF
    outcome = run_submission(with_params(tmp_path, "forged_frames.py", params), calls=2)
    first, second = outcome.results
    assert first.status in ("error", "crash"), first
    assert first.error is not None
    assert second.status == first.status


def test_a_huge_sparse_submission_is_refused_by_its_size_without_reading_it(
    tmp_path: Path,
) -> None:
    source = tmp_path / "mine.py"
    with open(source, "wb") as sparse:
        sparse.write(b"def attention(Q, K, V):\n    return V\n")
        sparse.truncate(30 * 2**30)
    # The peak resident size of this process's own memory (VmHWM). Not getrusage's ru_maxrss:
    # Linux carries that over fork and exec, so it would count the test runner's own memory.
    script = (
        "import re, sys; from engine.cli import main; code = main(sys.argv[1:]); "
        "status = open('/proc/self/status').read(); "
        "print('MAXRSS', re.search(r'VmHWM:\\s*(\\d+)', status).group(1), file=sys.stderr); "
        "sys.exit(code)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "submit", str(source), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    message, _, peak = done.stderr.partition("MAXRSS")
    assert message.strip() == (
        f"attnquiz: error: {source} is larger than 1 MB; submit the function alone"
    )
    assert int(peak) < 400_000  # kB: nothing like the 30 GB a whole read would hold


_DESCRIPTORS = """import os
import stat

import numpy as np


def attention(Q, K, V):
    kinds = []
    for fd in range(65536):
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            continue
        kinds.append(1.0 if stat.S_ISSOCK(mode) else 2.0 if stat.S_ISFIFO(mode) else 3.0)
    return np.array(kinds)
"""


def test_the_code_holds_no_descriptor_but_its_output_and_its_channel(tmp_path: Path) -> None:
    # Each sandbox is forked from a template process (attention_ref/sandbox/template.py): its
    # socket to the parent, and anything else it held, must not reach the submission.
    source = tmp_path / "descriptors.py"
    source.write_text(_DESCRIPTORS, encoding="utf-8")
    outcome = run_submission(source)
    (result,) = outcome.results
    assert result.status == "ok", result.error
    kinds = list(result.value)
    assert kinds.count(1.0) == 1  # one socket: the sandbox's own channel
    assert kinds.count(2.0) == 2  # two pipes: stdout and stderr
