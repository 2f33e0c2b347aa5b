"""A template process that every sandbox of one grading thread is forked from.

Starting a sandbox used to start a fresh interpreter, which then imported the harness and NumPy:
about 0.12 s of CPU per sandbox, most of what grading a submission costs. The template is that
same interpreter (`python -I -B`, an empty environment, its own session, the grader's user)
with the harness and NumPy imported once; it never runs submitted code. For each sandbox it
forks a copy, which becomes the sandbox's first process exactly as a freshly started one would:
a new session, standard input from /dev/null, stdout and stderr on the parent's pipes, the
private channel, the sandbox's folder as its working directory and HOME and TMPDIR in it, and
no other file descriptor (the template's own socket included). The copy then runs
`child.main`.

    parent (grader thread) -> template -> supervisor -> init -> worker

A thread has up to two templates: the plain one, and one that has also started Numba
(`numba_start`) for sandboxes of code that uses it, started the first time such a sandbox is.

The template dies with the thread that started it (a parent-death signal), and each supervisor
with the template, which it treats as its parent: killing the grader, even with SIGKILL, still
takes every sandbox with it. The template reaps a supervisor it forked only when the parent asks
(`SandboxProcess.wait`, after killing it), as the parent would reap its own child: until then the
pid cannot be reused, so a kill by that pid or process group never reaches another process.

The template is started by fork and exec (never a bare fork of the grader, whose other threads
may hold locks), runs one thread, and holds /dev/null and its socket only, and when root the
import folders a private uid cannot reach (opened once here for every sandbox's worker, see
`isolation.reroute_unreachable_imports`). Every wait for it is bounded (`ANSWER_SECONDS` for
a reap): a template that stops answering is killed, with its sandboxes, and the grading that
needed it fails; it never holds the grader.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Mapping
from typing import IO, Any, NoReturn

from attention_ref.sandbox.processes import stat_fields

_MAX_REQUEST = 1 << 16
_FDS_PER_SANDBOX = 3  # channel, stdout, stderr
_CHANNEL_FD = 3  # where the sandbox's first process finds its channel
# How long the template may take to answer a request to reap a sandbox the parent has killed.
ANSWER_SECONDS = 20.0


class TemplateError(RuntimeError):
    """The template process could not start or fork."""


# -- the template process -------------------------------------------------------------------


def serve(control_fd: int, parent: int, package_root: str, numba: bool = False) -> NoReturn:
    """The template's loop: import once (and start Numba, for a Numba template), then fork a
    sandbox for each request."""
    import attention_ref.sandbox.isolation as isolation

    isolation.die_with_parent(signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(0)
    control = socket.socket(fileno=control_fd)
    # What every sandbox's worker imports first, while every file is still reachable.
    import importlib.util  # noqa: F401
    import resource  # noqa: F401

    import numpy  # noqa: F401

    import attention_ref.sandbox.arrays
    import attention_ref.sandbox.child as child
    import attention_ref.sandbox.returned  # noqa: F401

    if numba:
        import attention_ref.sandbox.numba_start as numba_start

        # A head start only: should Numba fail to start here, each sandbox starts it itself
        # (and the submission's import reports what is wrong).
        with contextlib.suppress(Exception):
            numba_start.start()

    # As each worker does before it confines itself (the boot line put the package root first),
    # once here: then a worker finds its imports rerouted and holds the same folders open.
    if sys.path and sys.path[0] == package_root:
        del sys.path[0]
    if os.geteuid() == 0:  # the sandboxes then run as a private uid
        isolation.reroute_unreachable_imports()

    # What is loaded now is shared by every fork: keep the collector from touching it there
    # (a page it writes to is a page the fork must copy).
    gc.freeze()

    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, _MAX_REQUEST, _FDS_PER_SANDBOX)
        except OSError:
            os._exit(0)
        if not message:
            os._exit(0)  # the parent closed its end
        request = json.loads(message)
        if "reap" in request:
            for fd in fds:
                os.close(fd)
            control.send(json.dumps(_reap(int(request["reap"]))).encode())
            continue
        if len(fds) != _FDS_PER_SANDBOX:
            for fd in fds:
                os.close(fd)
            control.send(json.dumps({"error": "expected three descriptors"}).encode())
            continue
        pid = os.fork()
        if pid == 0:
            _become_sandbox(control, fds, request, child.main)
        for fd in fds:
            os.close(fd)
        control.send(json.dumps({"pid": pid, "template": os.getpid()}).encode())


def _reap(pid: int) -> dict[str, Any]:
    """Wait for the sandbox `pid` (the parent has killed it) and free its process id. Only
    then: until it is reaped its pid cannot be reused, so the parent's kills by that pid (and
    process group) can never reach another process."""
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return {"error": f"{pid} is not a sandbox of this template"}
    return {"status": os.waitstatus_to_exitcode(status)}


def _become_sandbox(
    control: socket.socket, fds: list[int], request: dict[str, Any], main: Any
) -> NoReturn:
    """In the forked copy: become a sandbox's first process, then run the harness."""
    import attention_ref.sandbox.isolation as isolation

    try:
        control.detach()  # closed below with every other descriptor
        os.setsid()
        channel, out, err = fds
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        os.dup2(channel, _CHANNEL_FD)
        # Every other descriptor closes, but for the import folders held for the private uid.
        start = _CHANNEL_FD + 1
        for held in sorted(isolation.held_import_folders()):
            os.closerange(start, held)
            start = held + 1
        os.closerange(start, _max_fd())
        os.chdir(request["cwd"])
        os.environ["HOME"] = request["home"]
        os.environ["TMPDIR"] = request["tmpdir"]
    except BaseException:
        os._exit(70)
    main(_CHANNEL_FD)
    os._exit(70)  # main never returns


def _max_fd() -> int:
    import resource

    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return soft if 0 < soft < 1 << 20 else 1 << 16


# -- the parent's side ----------------------------------------------------------------------


class SandboxProcess:
    """The sandbox's first process as the parent sees it: its pid, the parent's ends of its
    stdout and stderr, and its end. Like a child of the parent's own, it stays a zombie until
    `wait` (the template reaps it when asked), so its pid is never reused before the parent
    is done killing it."""

    def __init__(
        self, pid: int, owner: Template, template: int, stdout: IO[bytes], stderr: IO[bytes]
    ) -> None:
        self.pid = pid
        self.template = template  # the process it treats as its parent
        self._owner = owner
        self.stdout: IO[bytes] | None = stdout
        self.stderr: IO[bytes] | None = stderr
        self.returncode: int | None = None

    def wait(self) -> int:
        """Wait for it to end (the caller has killed it) and have the template reap it."""
        if self.returncode is None:
            try:
                self.returncode = self._owner.reap(self.pid)
            except TemplateError:
                # The template is gone (ended by `reap` if it stopped answering), so the
                # system reaps the process, which the caller has killed.
                stop = time.monotonic() + ANSWER_SECONDS
                while _alive(self.pid, self.template) and time.monotonic() < stop:
                    time.sleep(0.002)
                self.returncode = -signal.SIGKILL
        return self.returncode


def _alive(pid: int, parent: int) -> bool:
    """Whether `pid` is still the template's child and not yet a zombie."""
    fields = stat_fields(pid)
    return len(fields) > 1 and fields[0] not in ("Z", "X") and fields[1] == str(parent)


class Template:
    """One template process, started by (and dying with) the calling thread.

    Every wait for it is bounded: a template that does not answer in time is killed (its
    sandboxes die with it) and TemplateError raised, so a stalled template can fail a
    grading but never hold the grader. Only the process that started it may use or kill it:
    a forked copy of the grader that inherited this object leaves the template alone.
    """

    def __init__(
        self, argv: list[str], env: Mapping[str, str], package_root: str, *, numba: bool = False
    ) -> None:
        import subprocess

        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        boot = (
            "import sys; sys.path.insert(0, sys.argv[3]); "
            "from attention_ref.sandbox.template import serve; "
            "serve(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4] == 'numba')"
        )
        self.numba = numba
        try:
            with theirs:
                self.process = subprocess.Popen(
                    [
                        *argv,
                        "-c",
                        boot,
                        str(theirs.fileno()),
                        str(os.getpid()),
                        package_root,
                        "numba" if numba else "plain",
                    ],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    pass_fds=(theirs.fileno(),),
                    start_new_session=True,
                    env=dict(env),
                    cwd="/",
                )
        except BaseException:
            ours.close()
            raise
        self._control = ours
        self._owner_pid = os.getpid()
        # One request and its answer at a time, should another thread end a sandbox.
        self._lock = threading.Lock()
        self.thread = threading.get_ident()

    def alive(self) -> bool:
        return self._owner_pid == os.getpid() and self.process.poll() is None

    def fork(
        self, channel: socket.socket, cwd: str, home: str, tmpdir: str, timeout: float
    ) -> SandboxProcess:
        """A new sandbox's first process, its output on fresh pipes."""
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        try:
            request = {"cwd": cwd, "home": home, "tmpdir": tmpdir}
            answer = self._ask(request, [channel.fileno(), out_write, err_write], timeout)
            if "pid" not in answer:
                self.close()
                raise TemplateError(f"the template refused: {answer.get('error')}")
        except BaseException:
            for fd in (out_read, err_read):
                os.close(fd)
            raise
        finally:
            for fd in (out_write, err_write):
                os.close(fd)
        return SandboxProcess(
            int(answer["pid"]),
            self,
            int(answer["template"]),
            os.fdopen(out_read, "rb", buffering=0),
            os.fdopen(err_read, "rb", buffering=0),
        )

    def reap(self, pid: int) -> int:
        """Have the template wait for its sandbox `pid` (already killed) and free its pid; its
        exit status."""
        answer = self._ask({"reap": pid}, [], ANSWER_SECONDS)
        if "status" not in answer:
            raise TemplateError(f"the template refused: {answer.get('error')}")
        return int(answer["status"])

    def _ask(self, request: dict[str, Any], fds: list[int], timeout: float) -> dict[str, Any]:
        """Send one request and read its answer within `timeout` seconds. If there is none
        (no answer in time, the template gone, a garbled reply), end the template."""
        if not self.alive():
            raise TemplateError("the template has ended")
        with self._lock:
            try:
                self._control.settimeout(timeout)
                message = json.dumps(request).encode()
                if fds:
                    socket.send_fds(self._control, [message], fds)
                else:
                    self._control.send(message)
                reply = self._control.recv(_MAX_REQUEST)
                answer = json.loads(reply) if reply else None
            except (OSError, ValueError) as error:
                problem = f"the template did not answer ({error})"
            else:
                problem = "the template ended" if not isinstance(answer, dict) else ""
        if problem:
            self.close()
            raise TemplateError(problem)
        assert isinstance(answer, dict)
        return answer

    def close(self) -> None:
        """End the template (its sandboxes end with it) and reap it; in a forked copy of the
        grader, only drop this copy's end of the socket."""
        with contextlib.suppress(OSError):
            self._control.close()
        if self._owner_pid != os.getpid():
            return
        with contextlib.suppress(OSError):
            self.process.kill()
        self.process.wait()

    def __del__(self) -> None:
        # The thread that started it ended (its thread-local slot is dropped): the kernel has
        # already sent it SIGKILL; close the socket and reap it.
        with contextlib.suppress(Exception):
            self.close()


_PER_THREAD = threading.local()


def _this_threads() -> dict[bool, Template]:
    """This thread's templates: the plain one and the Numba one (key True), each once started."""
    templates: dict[bool, Template] | None = getattr(_PER_THREAD, "templates", None)
    if templates is None:
        templates = _PER_THREAD.templates = {}
    return templates


def template_for_this_thread(
    argv: list[str], env: Mapping[str, str], package_root: str, *, numba: bool = False
) -> Template:
    """This thread's template, started now if it has none or its template has ended. `numba`:
    the one that has started Numba (`numba_start`), for sandboxes that use it; started the
    first time such a sandbox is, so grading NumPy code never pays for it."""
    templates = _this_threads()
    template = templates.get(numba)
    if template is None or not template.alive():
        if template is not None:
            template.close()
        template = Template(argv, env, package_root, numba=numba)
        templates[numba] = template
    return template


def discard_this_threads_template(*, numba: bool | None = None) -> None:
    """End this thread's template of that kind (`numba`), or both when None."""
    templates = _this_threads()
    for kind in (False, True) if numba is None else (numba,):
        template = templates.pop(kind, None)
        if template is not None:
            template.close()
