"""The trusted harness inside the sandbox: supervisor, namespace init and worker.

The parent starts `main` as root in a new session (forked from a template process that has
imported this module and NumPy, see `template`). It reads its settings from the channel,
unshares network and PID namespaces and forks a namespace init, which forks the worker:

    supervisor (host namespace, root) -> init (PID 1, root) -> worker (private uid, Landlock)

The worker imports NumPy, confines itself (rlimits, uid, Landlock), says "ready", and only then
imports the submission. It answers each call with the function's outputs, never a verdict. When
the worker ends, init sends the parent an "ended" note with the exit status and exits, and the
kernel kills everything left in the PID namespace. Each process dies with its parent.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import secrets
import signal
import socket
import sys
from typing import Any, NoReturn

import attention_ref.sandbox.isolation as isolation
import attention_ref.sandbox.landlock as landlock
import attention_ref.sandbox.numba_start as numba_start
import attention_ref.sandbox.own_packages as own_packages
import attention_ref.sandbox.protocol as protocol
import attention_ref.sandbox.seccomp as seccomp
from attention_ref.sandbox.limits import Limits, apply_limits, arm_cpu_limit

_MAX_MESSAGE = 400
_HARNESS_FAILURE = 70


def main(channel_fd: int) -> NoReturn:
    sock = socket.socket(fileno=channel_fd)
    hello = protocol.read_frame(sock, None)
    settings = hello.header
    facts = _unshare_namespaces(settings["uid"] is not None)
    init = os.fork()
    if init:
        sock.close()
        _supervise(init, settings["workdir"], settings["parent_pid"])
    isolation.die_with_parent()
    worker = os.fork()
    if worker:
        _run_init(sock, hello.token, worker)
    try:
        _run_worker(sock, hello.token, settings, facts)
    except BaseException:
        import traceback

        traceback.print_exc()
        sys.stderr.flush()
    os._exit(_HARNESS_FAILURE)


def _unshare_namespaces(as_root: bool) -> dict[str, str]:
    if not as_root:
        reason = "unavailable: not running as root"
        return {
            "network": reason + " (only Landlock's TCP rules and seccomp apply)",
            "pid namespace": reason,
            "ipc": reason + " (seccomp denies creating IPC objects)",
        }
    facts: dict[str, str] = {}
    try:
        isolation.unshare(isolation.CLONE_NEWNET)
        facts["network"] = "new network namespace (no interfaces up)"
    except OSError as error:
        facts["network"] = f"unavailable: unshare(CLONE_NEWNET) failed: {error.strerror}"
    try:
        isolation.unshare(isolation.CLONE_NEWPID)
        facts["pid namespace"] = "new PID namespace: all it started dies with its init"
    except OSError as error:
        facts["pid namespace"] = f"unavailable: unshare(CLONE_NEWPID) failed: {error.strerror}"
    try:
        isolation.unshare(isolation.CLONE_NEWIPC)
        facts["ipc"] = "new IPC namespace: SysV objects and message queues die with it"
    except OSError as error:
        facts["ipc"] = f"unavailable: unshare(CLONE_NEWIPC) failed: {error.strerror}"
    return facts


def _supervise(init: int, workdir: str, parent: int) -> NoReturn:
    """Stay as the link to the parent and mirror init's exit.

    Normally the parent kills this process itself. If the parent dies first (even by SIGKILL),
    the kernel sends SIGTERM here: kill init, which takes the whole PID namespace with it,
    and remove the temporary folder, which the parent no longer can.
    """
    orphaned = False

    def on_parent_death(signum: int, frame: object) -> None:
        nonlocal orphaned
        orphaned = True
        with contextlib.suppress(ProcessLookupError):
            os.kill(init, signal.SIGKILL)

    signal.signal(signal.SIGTERM, on_parent_death)
    isolation.die_with_parent(signal.SIGTERM)
    if os.getppid() != parent:
        on_parent_death(signal.SIGTERM, None)
    while True:
        try:
            _, status = os.waitpid(init, 0)
            break
        except InterruptedError:
            continue
    if orphaned:
        import shutil

        shutil.rmtree(workdir, ignore_errors=True)
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def _run_init(sock: socket.socket, token: bytes, worker: int) -> NoReturn:
    """Reap orphans until the worker ends, tell the parent how it ended, then exit."""
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except InterruptedError:
            continue
        except ChildProcessError:
            os._exit(0)
        if pid == worker:
            break
    note: dict[str, Any] = {"kind": "ended", "signal": None, "exit_code": None}
    if os.WIFSIGNALED(status):
        note["signal"] = os.WTERMSIG(status)
    else:
        note["exit_code"] = os.waitstatus_to_exitcode(status)
    with contextlib.suppress(OSError):
        protocol.send_frame(sock, token, protocol.UNSOLICITED, note)
    os._exit(0)


def _hide_channel(sock: socket.socket) -> socket.socket:
    """Move the channel to a random fd above 255, close-on-exec (obscurity, not a boundary)."""
    import resource

    ceiling = min(1024, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    floor = 256 if ceiling > 512 else 3
    while True:
        target = floor + secrets.randbelow(ceiling - floor)
        try:
            os.fstat(target)
        except OSError:
            break
    os.dup2(sock.fileno(), target, inheritable=False)
    sock.close()
    return socket.socket(fileno=target)


def _run_worker(
    sock: socket.socket, token: bytes, settings: dict[str, Any], facts: dict[str, str]
) -> None:
    isolation.die_with_parent()
    import numpy as np  # noqa: F401  (loaded while every file is still reachable)

    import attention_ref.sandbox.arrays as arrays  # noqa: F401
    import attention_ref.sandbox.returned as returned  # noqa: F401

    # The boot line put the package root first; installed packages (numba, scipy) stay.
    if sys.path and sys.path[0] == settings["package_root"]:
        del sys.path[0]
    sock = _hide_channel(sock)
    limits = Limits.from_json(settings["limits"])
    uid, gid = settings["uid"], settings["gid"]
    workdir = settings["workdir"]
    if uid is not None:
        routes = isolation.reroute_unreachable_imports()
        if routes:
            facts["imports"] = f"{len(routes)} closed import folders reached through held fds"
    # attnquiz's own reference code brings its Numba cache; the private tmpfs would hide it.
    carried = (
        _read_tree(os.path.join(workdir, _NUMBA_CACHE)) if settings.get("own_packages") else {}
    )
    facts["disk"] = _bound_disk(settings, limits)
    _write_tree(os.path.join(workdir, _NUMBA_CACHE), carried, settings["uid"])
    try:
        own = own_packages.own_package_folders(settings["package_root"])
        grants = isolation.read_only_grants(settings["protected"])
        if settings.get("own_packages"):
            # attnquiz's own reference code, timed next to a submission.
            # threadpoolctl (which the kernel asks for NumPy's BLAS) reads its own maps.
            readable, listable = [*grants, *own, "/proc/self/maps"], list[str]()
            os.environ["NUMBA_CACHE_DIR"] = os.path.join(workdir, _NUMBA_CACHE)
        else:
            readable, listable = own_packages.split_grants(grants, own)
        ruleset: landlock.Ruleset | None = landlock.build_ruleset(
            readable, [workdir], isolation.DEVICES, listable
        )
    except landlock.LandlockUnavailable as error:
        ruleset = None
        facts["landlock"] = f"unavailable: {error}; writes and reads are not path-restricted"
    numba_start.reread_settings()  # when forked from a Numba template: this environment's
    facts.update(apply_limits(limits))
    if uid is not None:
        groups = isolation.drop_privileges(uid, gid)
        facts["user"] = f"uid {uid}, gid {gid}, {groups}, empty HOME"
        facts["processes"] = (
            f"at most {limits.max_processes} processes and threads for uid {uid} (RLIMIT_NPROC)"
        )
    else:
        facts["user"] = f"unavailable: not root, runs as uid {os.getuid()} with an empty HOME"
        facts["processes"] = (
            f"RLIMIT_NPROC {limits.max_processes} counts every process of uid {os.getuid()}"
        )
    isolation.die_with_parent()
    if ruleset is not None:
        landlock.enforce(ruleset)
        facts["landlock"] = ruleset.description
    try:
        facts["seccomp"] = seccomp.install()
    except seccomp.SeccompUnavailable as error:
        facts["seccomp"] = f"unavailable: {error}"
    os.chdir(workdir)
    os.umask(0o077)
    facts["own packages"] = (
        "readable: this sandbox runs attnquiz's own reference code"
        if settings.get("own_packages")
        else "attention_ref and engine: files unreadable, imports refused"
    )
    protocol.send_frame(sock, token, 0, {"kind": "ready", "isolation": facts})
    worker = _Worker(sock, token, settings, limits)
    if not settings.get("own_packages"):
        own_packages.hide_own_modules()
    worker.serve()


_NUMBA_CACHE = "numba-cache"


def _read_tree(root: str) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, "rb") as handle:
                found[os.path.relpath(path, root)] = handle.read()
    return found


def _write_tree(root: str, files: dict[str, bytes], uid: int | None) -> None:
    """Write `files` under `root` again if they are gone (a tmpfs was mounted over them)."""
    for relative, data in files.items():
        path = os.path.join(root, relative)
        if os.path.exists(path):
            continue
        folder = os.path.dirname(path)
        os.makedirs(folder, exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(data)
        if uid is not None:
            for step in (path, folder, os.path.dirname(folder), root):
                os.chown(step, uid, uid)


def _bound_disk(settings: dict[str, Any], limits: Limits) -> str:
    """Bound the bytes of all files written together (a private tmpfs), as far as possible."""
    uid = settings["uid"]
    if uid is None:
        return "unavailable: not running as root; only each file's size is bounded"
    try:
        isolation.private_scratch(
            settings["workdir"], settings["submission"], uid, limits.max_disk_bytes
        )
    except OSError as error:
        return f"unavailable: no private tmpfs ({error.strerror}); only each file's size is bounded"
    return f"all files together at most {limits.max_disk_bytes} bytes (private tmpfs)"


class _Worker:
    """The request loop. Everything here runs with the submission in the same process."""

    def __init__(
        self, sock: socket.socket, token: bytes, settings: dict[str, Any], limits: Limits
    ) -> None:
        import attention_ref.sandbox.arrays as arrays
        import attention_ref.sandbox.returned as returned

        self._arrays = arrays
        self._returned = returned
        self._sock = sock
        self._token = token
        self._path: str = settings["submission"]
        self._function_name: str = settings["function"]
        self._limits = limits
        self._pid = os.getpid()
        self._function: Any = None
        # Freed on MemoryError, so the harness has room to report it.
        self._reserve: bytearray | None = bytearray(1 << 20)

    def serve(self) -> NoReturn:
        while True:
            try:
                frame = protocol.read_frame(self._sock, self._token)
            except (EOFError, OSError):
                os._exit(0)
            kind = frame.header.get("kind")
            if kind == "import":
                reply = self._import()
                self._send(frame.seq, reply, [])
            elif kind == "call":
                reply, views = self._call(frame)
                self._send(frame.seq, reply, views)
            else:
                os._exit(_HARNESS_FAILURE)

    def _send(self, seq: int, header: dict[str, Any], views: list[memoryview]) -> None:
        if os.getpid() != self._pid:
            os._exit(0)  # a forked copy of the worker returned here: it has nothing to say
        for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            try:
                if stream is not None:
                    stream.flush()
            except BaseException:
                pass
        try:
            protocol.send_frame(self._sock, self._token, seq, header, views)
        except OSError:
            os._exit(0)

    def _failure(self, error: BaseException) -> dict[str, Any]:
        if isinstance(error, MemoryError):
            self._reserve = None
            status = "memory"
        else:
            status = "error"
        return {"status": status, "error": describe_exception(error, self._path)}

    def _import(self) -> dict[str, Any]:
        import importlib.util

        arm_cpu_limit(self._limits.seconds_per_call)
        reply: dict[str, Any] = {"kind": "imported", "function_found": False}
        try:
            spec = importlib.util.spec_from_file_location("submission", self._path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {os.path.basename(self._path)}")
            module = importlib.util.module_from_spec(spec)
            sys.modules["submission"] = module
            spec.loader.exec_module(module)
            function = _resolve(module, self._function_name)
        except BaseException as error:
            reply.update(self._failure(error))
            return reply
        if not callable(function):
            reply.update(status="error", error=f"no function named {self._function_name!r}")
            return reply
        self._function = function
        reply.update(status="ok", error=None, function_found=True)
        return reply

    def _call(self, frame: protocol.Frame) -> tuple[dict[str, Any], list[memoryview]]:
        header = frame.header
        received = self._arrays.decode_arrays(header["arrays"], frame.payload)
        positional = received[: header["positional"]]
        keywords: dict[str, Any] = dict.fromkeys(header["none_keywords"])
        keywords.update(zip(header["keywords"], received[header["positional"] :], strict=True))
        for name in header.get("scalars", ()):
            keywords[name] = keywords[name].item()  # d_k=8, causal=True, axis=-1
        if header.get("as_lists"):
            positional = [a.tolist() for a in positional]
            keywords = {k: v.tolist() if hasattr(v, "tolist") else v for k, v in keywords.items()}
        arm_cpu_limit(self._limits.seconds_per_call)
        reply: dict[str, Any] = {"kind": "result"}
        try:
            # A different heap offset for each call: timing samples many memory layouts, not
            # the one this process happened to get (identical code in two processes can differ
            # by a third at one size from layout alone).
            shift = bytearray(64 * secrets.randbelow(256))
            value = self._function(*positional, **keywords)
            del shift
            form, items = self._as_arrays(value)
            specs, views = self._arrays.encode_arrays(items)
            form["arrays"] = specs
        except BaseException as error:
            if os.getpid() != self._pid:
                os._exit(0)
            reply.update(self._failure(error))
            return reply, []
        reply.update(status="ok", error=None, value=form)
        return reply, views

    def _as_arrays(self, value: object) -> tuple[dict[str, Any], list[Any]]:
        if os.getpid() != self._pid:
            os._exit(0)
        form, converted = self._returned.convert(
            value, sys.modules["numpy"], self._arrays.MAX_ITEMS
        )
        size = sum(int(a.nbytes) for a in converted)
        if size > protocol.MAX_RESULT_PAYLOAD:
            raise ValueError(f"the function returned {size} bytes, more than the sandbox carries")
        return form, converted


def _resolve(module: Any, name: str) -> Any:
    """`f`, `Class.method` of a static or class method, or else `Class.method` called on
    `Class()` (a class with a no-argument constructor)."""
    owner_name, _, method = name.rpartition(".")
    if not owner_name:
        return getattr(module, name, None)
    owner = getattr(module, owner_name, None)
    if isinstance(owner, type):
        if isinstance(inspect.getattr_static(owner, method, None), staticmethod | classmethod):
            return getattr(owner, method, None)
        owner = owner()
    return getattr(owner, method, None)


def describe_exception(error: BaseException, path: str) -> str:
    """One line: "Type: message (line N)", N being the deepest line of the submission involved."""
    name = type(error).__name__
    line = None
    if isinstance(error, SyntaxError):
        message = str(error.msg)
        if error.filename == path:
            line = error.lineno
    else:
        try:
            message = str(error)
        except BaseException:
            message = "<the message could not be shown>"
    trace = error.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == path:
            line = trace.tb_lineno
        trace = trace.tb_next
    text = " ".join(f"{name}: {message}".split()) if message.strip() else name
    if len(text) > _MAX_MESSAGE:
        text = text[: _MAX_MESSAGE - 3] + "..."
    return f"{text} (line {line})" if line is not None else text
