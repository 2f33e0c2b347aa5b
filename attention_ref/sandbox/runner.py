"""The parent side: start one sandboxed process per submission, call its function, kill it all.

    with Sandbox(Path("mine.py"), "attention", Limits(seconds_per_call=2)) as box:
        result = box.call(Q, K, V)           # CallResult: status, value, error, seconds
        report = box.report()                # isolation in force, output tails, import outcome

The parent never trusts the child: replies are parsed by `protocol`/`arrays` with size caps,
and a reply only ever carries outputs for the caller to compare. `launch` prepares the folder
and starts the process, `channel` talks to it (one poll loop, no helper threads) and `endings`
describes how it died and kills what is left.
"""

from __future__ import annotations

import errno
import secrets
import time
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

import attention_ref.sandbox.launch as launch
import attention_ref.sandbox.memory_cgroup as memory_cgroup
import attention_ref.sandbox.protocol as protocol
from attention_ref.bounded_read import read_at_most
from attention_ref.sandbox.arrays import MAX_ITEMS, ArrayFormatError, decode_arrays, encode_arrays
from attention_ref.sandbox.channel import Channel, Closed, Deadline, Ended
from attention_ref.sandbox.endings import describe_death, kill_everything, one_line
from attention_ref.sandbox.limits import Limits
from attention_ref.sandbox.output import CappedTail
from attention_ref.sandbox.peak_memory import PeakMemory, worker_of
from attention_ref.sandbox.results import (
    FATAL,
    CallResult,
    ListValue,
    NotAnArray,
    SandboxReport,
    Status,
)
from attention_ref.sandbox.template import SandboxProcess

# The largest file a sandbox copies in (the grader refuses more than 1 MB before this).
MAX_SUBMISSION_BYTES = 16 * 2**20
# Kept here for callers that read it from the runner.
STARTUP_SECONDS = launch.STARTUP_SECONDS


class SandboxError(RuntimeError):
    """The sandbox itself could not start; not something the submission did."""


class Sandbox:
    """One confined process that imports `source` and serves calls of `function`.

    `__enter__` starts it and imports the submission (see `report()` for how that went);
    `call` sends arrays and waits at most `limits.seconds_per_call`; after a crash, timeout or
    memory failure the process is gone and every later call returns that same result.
    `__exit__` kills everything the sandbox started and deletes its temporary folder.
    `protect` names extra folders (for example a `--data-dir` store) no read grant may contain.
    `numba`: the code uses Numba, whose start-up a Numba template has already done (its CPU is
    then paid once per grading thread, not once per sandbox); any code may run either way.
    Use a Sandbox from one thread: its processes die with the thread that started them.
    """

    def __init__(
        self,
        source: Path,
        function: str,
        limits: Limits = Limits(),  # noqa: B008  (frozen, so sharing the default is safe)
        *,
        protect: Iterable[Path] = (),
        own_packages: bool = False,
        files: Mapping[str, bytes] | None = None,
        numba: bool = False,
    ) -> None:
        self.source = Path(source)
        self.function = function
        self.limits = limits
        # Only for attnquiz's own code (the references timed next to a submission): it may
        # import attention_ref, and finds `files` (e.g. a Numba cache) in its folder.
        self._own_packages = own_packages
        self._files = dict(files or {})
        # The code uses Numba: fork it from a template that has already started Numba.
        self._numba = numba
        self._protect = [str(Path(p).resolve()) for p in protect]
        self._token = secrets.token_bytes(protocol.TOKEN_BYTES)
        self._stdout = CappedTail(limits.max_output_bytes)
        self._stderr = CappedTail(limits.max_output_bytes)
        self._process: SandboxProcess | None = None
        self._channel: Channel | None = None
        self._workdir: Path | None = None
        self._uid: int | None = None
        self._cgroup: memory_cgroup.MemoryCgroup | None = None
        self._cgroup_note = ""
        self._peak: PeakMemory | None = None
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

    def call(
        self, *args: Any, as_lists: bool = False, measure_peak: bool = False, **kwargs: Any
    ) -> CallResult:
        """Call the function with these arrays (keyword values may be None; a Python bool,
        int or float keyword arrives as that scalar). `as_lists`: pass nested lists instead.
        `measure_peak`: the result's `peak_bytes` is the memory the call held at its peak,
        measured by the kernel from outside the sandbox (see `peak_memory`)."""
        if self._final is not None:
            return self._final
        if self._channel is None:
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
            "scalars": [k for k, v in kwargs.items() if isinstance(v, bool | int | float)],
            "as_lists": as_lists,
        }
        request = protocol.encode_frame(self._token, self._seq, header, views)
        meter = self._peak if measure_peak else None
        baseline = meter.reset() if meter is not None else None
        # What the call's processes held together (a child it forks): the memory cgroup's.
        group = self._cgroup.peak_meter() if measure_peak and self._cgroup else None
        try:
            return self._call(request, meter, baseline, group)
        finally:
            if group is not None:
                group.close()

    def _call(
        self,
        request: list[protocol.Buffer],
        meter: PeakMemory | None,
        baseline: int | None,
        group: memory_cgroup.GroupPeak | None,
    ) -> CallResult:
        start = time.monotonic()
        try:
            frame = self._exchange(request, start + self.limits.seconds_per_call)
        except Deadline:
            limit = self.limits.seconds_per_call
            message = f"took longer than {limit:g} s (wall clock)"
            return self._fatal("timeout", message, time.monotonic() - start)
        except Ended as ended:
            return self._fatal(*self._death(ended.note, "the call"), time.monotonic() - start)
        except Closed:
            return self._fatal(*self._channel_closed("the call"), None)
        except protocol.ProtocolError as error:
            return self._fatal("error", self._interference(error), None)
        seconds = time.monotonic() - start
        result = self._result(frame, seconds)
        if (meter is not None or group is not None) and result.status == "ok":
            peaks = [
                meter.growth_since(baseline) if meter is not None else None,
                group.growth() if group is not None else None,
            ]
            known = [peak for peak in peaks if peak is not None]
            return replace(result, peak_bytes=max(known) if known else None)
        return result

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
        # An unreadable file is the caller's OSError; so is one larger than any submission.
        source_text = read_at_most(self.source, MAX_SUBMISSION_BYTES)
        if source_text is None:
            too_large = f"larger than {MAX_SUBMISSION_BYTES} bytes"
            raise OSError(errno.EFBIG, too_large, str(self.source))
        workdir = launch.prepare_workdir(self.source, source_text)
        self._workdir, self._uid = workdir.path, workdir.uid
        self._place_files(workdir.path, workdir.uid)
        self._join_cgroup_before_spawn()
        self._process, sock = launch.spawn(workdir, numba=self._numba)
        if self._cgroup is not None:
            try:
                self._cgroup.add(self._process.pid)
            except OSError as error:
                self._cgroup.remove()
                self._cgroup = None
                self._cgroup_note = f"unavailable: could not join the cgroup ({error.strerror})"
        assert self._process.stdout is not None and self._process.stderr is not None
        streams = {
            self._process.stdout.fileno(): self._stdout,
            self._process.stderr.fileno(): self._stderr,
        }
        reader = protocol.FrameReader(self._token, protocol.MAX_RESULT_PAYLOAD)
        self._channel = Channel(sock, reader, streams)
        hello = launch.hello_header(
            workdir, self.function, self.limits, self._protect, self.source, self._process
        )
        hello["own_packages"] = self._own_packages
        try:
            frame = self._exchange(
                protocol.encode_frame(self._token, 0, hello),
                time.monotonic() + launch.STARTUP_SECONDS,
            )
        except (Ended, Deadline, Closed, protocol.ProtocolError) as error:
            self._kill()
            raise SandboxError(
                f"the sandbox did not start ({type(error).__name__}): "
                + self._stderr.text()[-2000:]
            ) from None
        if frame.header.get("kind") != "ready":
            self._kill()
            raise SandboxError(f"the sandbox sent {frame.header.get('kind')!r} instead of ready")
        self._isolation = launch.describe_isolation(
            frame.header["isolation"], self._uid, self.limits
        )
        # Found now, while the worker is the first process's only grandchild.
        worker = worker_of(self._process.pid)
        self._peak = PeakMemory(worker) if worker is not None else None
        self._isolation["memory cgroup"] = (
            self._cgroup.describe() if self._cgroup is not None else self._cgroup_note
        )

    def _join_cgroup_before_spawn(self) -> None:
        # Files the submission writes live in memory (tmpfs) and count against the group too.
        limit = self.limits.memory_bytes + self.limits.max_disk_bytes
        try:
            self._cgroup = memory_cgroup.create(limit)
        except memory_cgroup.CgroupUnavailable as error:
            self._cgroup_note = f"unavailable: {error}; each process has its own RLIMIT_AS"

    def _place_files(self, folder: Path, uid: int | None) -> None:
        """Write `files` (paths relative to the sandbox's folder), owned by its uid."""
        import os

        for relative, data in self._files.items():
            target = (folder / relative).resolve()
            if folder.resolve() not in target.parents:
                raise ValueError(f"{relative!r} is outside the sandbox's folder")
            made = [p for p in reversed(target.parents) if not p.exists()]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            if uid is not None:
                for path in [*made, target]:
                    os.chown(path, uid, uid)

    def _import(self) -> None:
        self._seq += 1
        request = protocol.encode_frame(self._token, self._seq, {"kind": "import"})
        deadline = time.monotonic() + self.limits.seconds_per_call
        status: Status
        try:
            frame = self._exchange(request, deadline)
        except Deadline:
            status = "timeout"
            message = f"importing took longer than {self.limits.seconds_per_call:g} s"
        except Ended as ended:
            status, message = self._death(ended.note, "the import")
        except Closed:
            status, message = self._channel_closed("the import")
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
                message = one_line(header.get("error"))
        self._import_status, self._import_error = status, message
        self._final = CallResult(status, None, f"the submission did not import: {message}", None)
        self._kill()

    # -- talking ----------------------------------------------------------------------------

    def _exchange(self, pieces: list[protocol.Buffer], deadline: float) -> protocol.Frame:
        assert self._channel is not None
        return self._channel.exchange(pieces, deadline)

    def _drain_available(self, budget: float) -> None:
        if self._channel is not None:
            self._channel.drain_available(budget)

    def _result(self, frame: protocol.Frame, seconds: float) -> CallResult:
        header = frame.header
        if frame.seq != self._seq or header.get("kind") != "result":
            return self._fatal("error", self._interference("out-of-turn frame"), None)
        status = header.get("status")
        if status == "ok":
            try:
                value = self._decode_value(header.get("value"), frame.payload)
            except (ArrayFormatError, KeyError, TypeError, ValueError, OverflowError) as error:
                return self._fatal("error", self._interference(error), None)
            return CallResult("ok", value, None, seconds)
        if status == "memory":
            return self._fatal("memory", one_line(header.get("error")), seconds)
        if status == "error":
            return CallResult("error", None, one_line(header.get("error")), seconds)
        return self._fatal("error", self._interference(f"unknown status {status!r}"), None)

    @staticmethod
    def _decode_value(value: Any, payload: bytes | bytearray) -> Any:
        arrays = decode_arrays(value["arrays"], payload)
        form, missing = value["form"], _not_arrays(value.get("not_arrays", []), len(arrays))
        if form == "array" and len(arrays) == 1 and not missing:
            return arrays[0]
        if form == "other" and not arrays and list(missing) == [0]:
            return missing[0]
        if form not in ("tuple", "list"):
            raise ArrayFormatError("unknown value form")
        found = iter(arrays)
        items = tuple(
            missing[i] if i in missing else _scalar_or_array(next(found))
            for i in range(len(arrays) + len(missing))
        )
        return items if form == "tuple" else ListValue(items)

    # -- endings ----------------------------------------------------------------------------

    def _interference(self, detail: object) -> str:
        return f"the submission interfered with the sandbox's channel ({one_line(detail)})"

    def _death(self, note: dict[str, Any], during: str) -> tuple[Status, str]:
        self._drain_available(0.2)  # the tail of stderr may say it was memory
        if self._cgroup is not None and self._cgroup.out_of_memory():
            return self._channel_closed(during)
        return describe_death(note, self._stderr.text(), self.limits.seconds_per_call, during)

    def _channel_closed(self, during: str) -> tuple[Status, str]:
        if self._cgroup is not None and self._cgroup.out_of_memory():
            limit = self._cgroup.limit_bytes
            return "memory", f"its processes together went over {limit} bytes during {during}"
        return "crash", f"the sandbox closed its channel without a reply during {during}"

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
        # Every process the sandbox started is in its memory cgroup: a cheap list to kill
        # first, before the scan of every process that proves none is left.
        members = self._cgroup.members if self._cgroup is not None else None
        kill_everything(self._process, self._uid, members)
        self._drain_available(1.0)

    def _shutdown(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._kill()
        if self._final is None:
            self._final = CallResult("error", None, "the sandbox is closed", None)
        if self._channel is not None:
            self._channel.close()
            self._channel.forget_streams()
        if self._process is not None:
            for pipe in (self._process.stdout, self._process.stderr):
                if pipe is not None:
                    pipe.close()
        if self._workdir is not None:
            launch.remove_tree(self._workdir)
        if self._cgroup is not None:
            self._cgroup.remove()


def _not_arrays(pairs: object, count: int) -> dict[int, NotAnArray]:
    """The child's [index, description] pairs for items that are not arrays, checked."""
    if not isinstance(pairs, list) or len(pairs) + count > MAX_ITEMS:
        raise ArrayFormatError("the list of items that are not arrays is malformed")
    found: dict[int, NotAnArray] = {}
    for pair in pairs:
        if not (isinstance(pair, list) and len(pair) == 2 and type(pair[0]) is int):
            raise ArrayFormatError("an item that is not an array is malformed")
        index, description = pair
        if not 0 <= index < len(pairs) + count or index in found:
            raise ArrayFormatError("an item that is not an array is out of place")
        found[index] = NotAnArray(one_line(description)[:200] or "an object")
    return found


def _scalar_or_array(array: Any) -> Any:
    return array if array.ndim else array[()]
