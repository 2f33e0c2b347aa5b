"""The parent side: start one sandboxed process per submission, call its function, kill it all.

    with Sandbox(Path("mine.py"), "attention", Limits(seconds_per_call=2)) as box:
        result = box.call(Q, K, V)           # CallResult: status, value, error, seconds
        report = box.report()                # isolation in force, output tails, import outcome

The parent never trusts the child: replies are parsed by `protocol`/`arrays` with size caps,
and a reply only ever carries outputs for the caller to compare. Waiting, draining the child's
stdout/stderr and timing all happen in one poll loop, so there are no helper threads.
"""

from __future__ import annotations

import contextlib
import math
import os
import secrets
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

from attention_ref.sandbox import processes, protocol
from attention_ref.sandbox.arrays import ArrayFormatError, decode_arrays, encode_arrays
from attention_ref.sandbox.isolation import others_can_enter
from attention_ref.sandbox.limits import Limits
from attention_ref.sandbox.output import CappedTail
from attention_ref.sandbox.results import FATAL, CallResult, SandboxReport, Status

# Starting Python and importing NumPy is not the submission's time; it gets its own bound.
STARTUP_SECONDS = 60.0
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[2]); "
    "from attention_ref.sandbox.child import main; main(int(sys.argv[1]))"
)
_THREAD_VARIABLES = (
    "OPENBLAS_NUM_THREADS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMBA_NUM_THREADS",
)
_MEMORY_WORDS = ("MemoryError", "Cannot allocate memory", "out of memory", "bad_alloc")
_MAX_ERROR = 500


class SandboxError(RuntimeError):
    """The sandbox itself could not start; not something the submission did."""


class _Ended(Exception):
    def __init__(self, note: dict[str, Any]) -> None:
        super().__init__("the sandboxed process ended")
        self.note = note


class _Deadline(Exception):
    pass


class _Closed(Exception):
    pass


def _one_line(text: object) -> str:
    line = " ".join(str(text).split())
    line = "".join(c if c.isprintable() else "?" for c in line)
    return line if len(line) <= _MAX_ERROR else line[: _MAX_ERROR - 3] + "..."


def _default_protected(source: Path) -> list[str]:
    """Folders no read grant may contain: HOME, the store, the submission's own folder, cwd."""
    from platformdirs import user_data_dir

    paths = [Path.home(), Path(user_data_dir("attnquiz", appauthor=False)), source.parent]
    if os.environ.get("ATTNQUIZ_HOME"):
        paths.append(Path(os.environ["ATTNQUIZ_HOME"]).expanduser())
    paths.append(Path.cwd())
    return [str(p.resolve()) for p in paths]


class Sandbox:
    """One confined process that imports `source` and serves calls of `function`.

    `__enter__` starts it and imports the submission (see `report()` for how that went);
    `call` sends arrays and waits at most `limits.seconds_per_call`; after a crash, timeout or
    memory failure the process is gone and every later call returns that same result.
    `__exit__` kills everything the sandbox started and deletes its temporary folder.
    `protect` names extra folders (for example a `--data-dir` store) no read grant may contain.
    Use a Sandbox from one thread: its processes die with the thread that started them.
    """

    def __init__(
        self,
        source: Path,
        function: str,
        limits: Limits = Limits(),  # noqa: B008  (frozen, so sharing the default is safe)
        *,
        protect: Iterable[Path] = (),
    ) -> None:
        self.source = Path(source)
        self.function = function
        self.limits = limits
        self._protect = [str(Path(p).resolve()) for p in protect]
        self._token = secrets.token_bytes(protocol.TOKEN_BYTES)
        self._reader = protocol.FrameReader(self._token, protocol.MAX_RESULT_PAYLOAD)
        self._stdout = CappedTail(limits.max_output_bytes)
        self._stderr = CappedTail(limits.max_output_bytes)
        self._streams: dict[int, CappedTail] = {}
        self._process: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._workdir: Path | None = None
        self._uid: int | None = None
        self._seq = 0
        self._isolation: dict[str, str] = {}
        self._import_status: Status = "error"
        self._import_error: str | None = "the sandbox was not started"
        self._function_found = False
        self._final: CallResult | None = None
        self._killed = False
        self._closed = False

    # -- public API -------------------------------------------------------------------------

    @property
    def uid(self) -> int | None:
        """The private uid of this run's processes (None when not running as root)."""
        return self._uid

    @property
    def pid(self) -> int | None:
        """The pid of the sandbox's first process (its session and process group)."""
        return self._process.pid if self._process else None

    def __enter__(self) -> Sandbox:
        try:
            self._start()
            self._import()
        except BaseException:
            self._shutdown()
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._shutdown()

    def call(self, *args: Any, **kwargs: Any) -> CallResult:
        """Call the function with these arrays (keyword values may be None)."""
        if self._final is not None:
            return self._final
        if self._sock is None:
            raise RuntimeError("call() needs an entered Sandbox (use it as a context manager)")
        positional = [np.asarray(a) for a in args]
        named = {k: np.asarray(v) for k, v in kwargs.items() if v is not None}
        try:
            specs, views = encode_arrays([*positional, *named.values()])
        except ArrayFormatError as error:
            raise TypeError(f"the sandbox only passes numeric arrays: {error}") from None
        self._seq += 1
        header = {
            "kind": "call",
            "arrays": specs,
            "positional": len(positional),
            "keywords": list(named),
            "none_keywords": [k for k, v in kwargs.items() if v is None],
        }
        request = protocol.encode_frame(self._token, self._seq, header, views)
        start = time.monotonic()
        try:
            frame = self._exchange(request, start + self.limits.seconds_per_call)
        except _Deadline:
            limit = self.limits.seconds_per_call
            message = f"took longer than {limit:g} s (wall clock)"
            return self._fatal("timeout", message, time.monotonic() - start)
        except _Ended as ended:
            return self._fatal(*self._death(ended.note, "the call"), time.monotonic() - start)
        except _Closed:
            return self._fatal("crash", "the sandbox closed its channel without a reply", None)
        except protocol.ProtocolError as error:
            return self._fatal("error", self._interference(error), None)
        seconds = time.monotonic() - start
        return self._result(frame, seconds)

    def report(self) -> SandboxReport:
        """Isolation in force, output tails so far (final after `__exit__`), import outcome."""
        self._drain_available(0.2)
        return SandboxReport(
            isolation=dict(self._isolation),
            stdout_tail=self._stdout.text(),
            stderr_tail=self._stderr.text(),
            import_error=self._import_error,
            import_status=self._import_status,
            function_found=self._function_found,
            stdout_bytes=self._stdout.total,
            stderr_bytes=self._stderr.total,
        )

    # -- starting ---------------------------------------------------------------------------

    def _start(self) -> None:
        source_text = self.source.read_bytes()  # an unreadable file is the caller's OSError
        as_root = os.geteuid() == 0
        base = tempfile.gettempdir()
        if as_root and not others_can_enter(base):
            base = "/tmp"
        workdir = Path(tempfile.mkdtemp(prefix="attnquiz-sandbox-", dir=base))
        self._workdir = workdir
        home, tmp = workdir / "home", workdir / "tmp"
        home.mkdir(mode=0o700)
        tmp.mkdir(mode=0o700)
        copy = workdir / (self.source.stem + ".py")
        copy.write_bytes(source_text)
        if as_root:
            self._uid = processes.pick_private_uid()
            for path in (workdir, home, tmp, copy):
                os.chown(path, self._uid, self._uid)
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(home),
            "TMPDIR": str(tmp),
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            **dict.fromkeys(_THREAD_VARIABLES, "1"),
        }
        parent_end, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock = parent_end
        with child_end:
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-B", "-c", _BOOT, str(child_end.fileno()), _PACKAGE_ROOT],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(child_end.fileno(),),
                start_new_session=True,
                env=env,
                cwd=workdir,
            )
        parent_end.setblocking(False)
        assert self._process.stdout is not None and self._process.stderr is not None
        for pipe, tail in (
            (self._process.stdout, self._stdout),
            (self._process.stderr, self._stderr),
        ):
            os.set_blocking(pipe.fileno(), False)
            self._streams[pipe.fileno()] = tail
        hello = {
            "kind": "hello",
            "uid": self._uid,
            "gid": self._uid,
            "workdir": str(workdir),
            "submission": str(copy),
            "function": self.function,
            "limits": self.limits.to_json(),
            "protected": [*_default_protected(self.source), *self._protect],
            "package_root": _PACKAGE_ROOT,
            "parent_pid": os.getpid(),
        }
        try:
            frame = self._exchange(
                protocol.encode_frame(self._token, 0, hello), time.monotonic() + STARTUP_SECONDS
            )
        except (_Ended, _Deadline, _Closed, protocol.ProtocolError) as error:
            self._kill()
            raise SandboxError(
                f"the sandbox did not start ({type(error).__name__.strip('_')}): "
                + self._stderr.text()[-2000:]
            ) from None
        if frame.header.get("kind") != "ready":
            self._kill()
            raise SandboxError(f"the sandbox sent {frame.header.get('kind')!r} instead of ready")
        self._isolation = {str(k): str(v) for k, v in frame.header["isolation"].items()}
        self._isolation["lifetime"] = "own session; at the end its process group is SIGKILLed" + (
            f" and every process of uid {self._uid} is killed" if self._uid else ""
        )
        self._isolation["output"] = (
            f"stdout and stderr drained continuously, last {self.limits.max_output_bytes} "
            "bytes of each kept"
        )
        self._isolation["channel"] = (
            "private socket pair; replies carry outputs only, framed with a per-run token"
        )

    def _import(self) -> None:
        self._seq += 1
        request = protocol.encode_frame(self._token, self._seq, {"kind": "import"})
        deadline = time.monotonic() + self.limits.seconds_per_call
        status: Status
        try:
            frame = self._exchange(request, deadline)
        except _Deadline:
            status = "timeout"
            message = f"importing took longer than {self.limits.seconds_per_call:g} s"
        except _Ended as ended:
            status, message = self._death(ended.note, "the import")
        except _Closed:
            status, message = "crash", "the sandbox closed its channel during the import"
        except protocol.ProtocolError as error:
            status, message = "error", self._interference(error)
        else:
            header = frame.header
            if frame.seq != self._seq or header.get("kind") != "imported":
                status, message = "error", self._interference("out-of-turn frame")
            elif header.get("status") == "ok":
                self._import_status, self._import_error = "ok", None
                self._function_found = True
                return
            else:
                got = header.get("status")
                status = got if got in ("error", "memory") else "error"
                message = _one_line(header.get("error"))
        self._import_status, self._import_error = status, message
        self._final = CallResult(status, None, f"the submission did not import: {message}", None)
        self._kill()

    # -- talking ----------------------------------------------------------------------------

    def _exchange(self, pieces: list[protocol.Buffer], deadline: float) -> protocol.Frame:
        """Send a request and wait for one frame, draining the output pipes meanwhile."""
        assert self._sock is not None
        outgoing = memoryview(b"".join(bytes(p) for p in pieces))
        sent = 0
        sock_fd = self._sock.fileno()
        poller = select.poll()
        poller.register(sock_fd, select.POLLIN | (select.POLLOUT if outgoing.nbytes else 0))
        for fd in self._streams:
            poller.register(fd, select.POLLIN)
        while True:
            frame = self._reader.next_frame()
            if frame is not None:
                if frame.seq == protocol.UNSOLICITED and frame.header.get("kind") == "ended":
                    raise _Ended(frame.header)
                return frame
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Deadline
            for fd, events in poller.poll(math.ceil(remaining * 1000)):
                if fd != sock_fd:
                    if not self._drain(fd):
                        poller.unregister(fd)
                    continue
                if events & select.POLLOUT and sent < outgoing.nbytes:
                    try:
                        sent += self._sock.send(outgoing[sent : sent + (1 << 20)])
                    except BlockingIOError:
                        pass
                    except OSError:
                        sent = outgoing.nbytes  # the peer is gone; its "ended" note may follow
                    if sent >= outgoing.nbytes:
                        poller.modify(sock_fd, select.POLLIN)
                if events & (select.POLLIN | select.POLLHUP | select.POLLERR):
                    try:
                        data = self._sock.recv(1 << 20)
                    except BlockingIOError:
                        continue
                    except OSError:
                        data = b""
                    if not data:
                        raise _Closed
                    self._reader.feed(data)

    def _drain(self, fd: int) -> bool:
        """Read what one pipe has; False at end of file (the stream is then forgotten)."""
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return True
        except OSError:
            chunk = b""
        if not chunk:
            self._streams.pop(fd, None)
            return False
        self._streams[fd].feed(chunk)
        return True

    def _drain_available(self, budget: float) -> None:
        stop = time.monotonic() + budget
        while self._streams and time.monotonic() < stop:
            ready = select.select(list(self._streams), [], [], 0)[0]
            if not ready:
                return
            for fd in ready:
                self._drain(fd)

    def _result(self, frame: protocol.Frame, seconds: float) -> CallResult:
        header = frame.header
        if frame.seq != self._seq or header.get("kind") != "result":
            return self._fatal("error", self._interference("out-of-turn frame"), None)
        status = header.get("status")
        if status == "ok":
            try:
                value = self._decode_value(header.get("value"), frame.payload)
            except (ArrayFormatError, KeyError, TypeError) as error:
                return self._fatal("error", self._interference(error), None)
            return CallResult("ok", value, None, seconds)
        if status == "memory":
            return self._fatal("memory", _one_line(header.get("error")), seconds)
        if status == "error":
            return CallResult("error", None, _one_line(header.get("error")), seconds)
        return self._fatal("error", self._interference(f"unknown status {status!r}"), None)

    @staticmethod
    def _decode_value(value: Any, payload: bytes | bytearray) -> Any:
        arrays = decode_arrays(value["arrays"], payload)
        if value["form"] == "array" and len(arrays) == 1:
            return arrays[0]
        if value["form"] == "tuple":
            return tuple(a if a.ndim else a[()] for a in arrays)
        raise ArrayFormatError("unknown value form")

    # -- endings ----------------------------------------------------------------------------

    def _interference(self, detail: object) -> str:
        return f"the submission interfered with the sandbox's channel ({_one_line(detail)})"

    def _death(self, note: dict[str, Any], during: str) -> tuple[Status, str]:
        number, code = note.get("signal"), note.get("exit_code")
        self._drain_available(0.2)
        if isinstance(number, int) and number > 0:
            if number == signal.SIGXCPU:
                limit = self.limits.seconds_per_call
                return "timeout", f"used more than its CPU time ({limit:g} s) during {during}"
            if any(word in self._stderr.text() for word in _MEMORY_WORDS):
                return "memory", f"ran out of memory during {during}"
            return "crash", f"killed by {processes.describe_signal(number)} during {during}"
        if isinstance(code, int):
            return "error", f"the process exited with code {code} during {during}"
        return "crash", f"the sandbox ended without a status during {during}"

    def _fatal(self, status: Status, message: str, seconds: float | None) -> CallResult:
        assert status in FATAL or status == "error"
        self._final = CallResult(status, None, message, None)
        self._kill()
        return CallResult(status, None, message, seconds)

    def _kill(self) -> None:
        """SIGKILL the process group and every process of the private uid; reap; drain."""
        if self._killed or self._process is None:
            return
        self._killed = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._process.pid, signal.SIGKILL)
        uid = self._uid
        if uid is not None and uid not in (0, os.getuid()):
            processes.kill_until_gone(lambda: processes.processes_of_uid(uid))
        else:
            session = self._process.pid
            processes.kill_until_gone(lambda: processes.processes_in_session(session))
        self._process.wait()
        self._drain_available(1.0)

    def _shutdown(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._kill()
        if self._final is None:
            self._final = CallResult("error", None, "the sandbox is closed", None)
        if self._sock is not None:
            self._sock.close()
        if self._process is not None:
            for pipe in (self._process.stdout, self._process.stderr):
                if pipe is not None:
                    pipe.close()
            self._streams.clear()
        if self._workdir is not None:
            _remove_tree(self._workdir)


def _remove_tree(path: Path) -> None:
    try:
        shutil.rmtree(path)
    except OSError:
        # The submission may have closed its own folders (chmod 000); open them up and retry.
        for folder, _, _ in os.walk(path):
            with contextlib.suppress(OSError):
                os.chmod(folder, 0o700)
        shutil.rmtree(path, ignore_errors=True)
