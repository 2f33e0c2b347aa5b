"""The parent's end of the talk with the sandbox: one poll loop for the socket and both pipes.

`Channel.exchange` sends a request over the private socket and waits for one frame, while it
keeps draining the child's stdout and stderr into capped tails, so a child that prints without
end can never block on a full pipe nor fill the parent's memory. Waiting, draining and the
deadline all live in this one loop, so there are no helper threads.
"""

from __future__ import annotations

import math
import os
import select
import socket
import time
from typing import Any

import attention_ref.sandbox.protocol as protocol
from attention_ref.sandbox.output import CappedTail


class Ended(Exception):
    """The sandbox's supervisor reported that the child ended (`note`: its signal or code)."""

    def __init__(self, note: dict[str, Any]) -> None:
        super().__init__("the sandboxed process ended")
        self.note = note


class Deadline(Exception):
    """No frame came before the deadline."""


class Closed(Exception):
    """The sandbox closed its end of the socket without a reply."""


class Channel:
    """The socket to the sandbox and the pipes of its output, read in one loop."""

    def __init__(
        self, sock: socket.socket, reader: protocol.FrameReader, streams: dict[int, CappedTail]
    ) -> None:
        self.sock = sock
        self._reader = reader
        self._streams = streams
        sock.setblocking(False)
        for fd in streams:
            os.set_blocking(fd, False)

    def exchange(self, pieces: list[protocol.Buffer], deadline: float) -> protocol.Frame:
        """Send a request and wait for one frame, draining the output pipes meanwhile.

        Raises Ended, Deadline, Closed, or protocol.ProtocolError for a malformed frame.
        """
        outgoing = memoryview(b"".join(bytes(p) for p in pieces))
        sent = 0
        sock_fd = self.sock.fileno()
        poller = select.poll()
        poller.register(sock_fd, select.POLLIN | (select.POLLOUT if outgoing.nbytes else 0))
        for fd in self._streams:
            poller.register(fd, select.POLLIN)
        while True:
            frame = self._reader.next_frame()
            if frame is not None:
                if frame.seq == protocol.UNSOLICITED and frame.header.get("kind") == "ended":
                    raise Ended(frame.header)
                return frame
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Deadline
            for fd, events in poller.poll(math.ceil(remaining * 1000)):
                if fd != sock_fd:
                    if not self.drain(fd):
                        poller.unregister(fd)
                    continue
                if events & select.POLLOUT and sent < outgoing.nbytes:
                    try:
                        sent += self.sock.send(outgoing[sent : sent + (1 << 20)])
                    except BlockingIOError:
                        pass
                    except OSError:
                        sent = outgoing.nbytes  # the peer is gone; its "ended" note may follow
                    if sent >= outgoing.nbytes:
                        poller.modify(sock_fd, select.POLLIN)
                if events & (select.POLLIN | select.POLLHUP | select.POLLERR):
                    try:
                        data = self.sock.recv(1 << 20)
                    except BlockingIOError:
                        continue
                    except OSError:
                        data = b""
                    if not data:
                        raise Closed
                    self._reader.feed(data)

    def drain(self, fd: int) -> bool:
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

    def drain_available(self, budget: float) -> None:
        """Read whatever the pipes hold now, for at most `budget` seconds."""
        stop = time.monotonic() + budget
        while self._streams and time.monotonic() < stop:
            ready = select.select(list(self._streams), [], [], 0)[0]
            if not ready:
                return
            for fd in ready:
                self.drain(fd)

    def forget_streams(self) -> None:
        self._streams.clear()

    def close(self) -> None:
        self.sock.close()
