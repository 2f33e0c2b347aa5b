"""The wire format between the parent and the sandboxed child: framed JSON headers + raw bytes.

Every frame is a fixed binary prefix (magic, the run's random token, a sequence number, the
header and payload lengths), a UTF-8 JSON header and an opaque payload. Nothing is ever
unpickled: the parent parses the prefix and JSON itself and enforces size caps before buffering,
so the worst a hostile child can send is a wrong answer or a frame the parent rejects.
This module imports no NumPy, because the child loads it before it forks.
"""

from __future__ import annotations

import json
import re
import socket
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

MAGIC = b"AQSB"
TOKEN_BYTES = 16
PREFIX = struct.Struct("!4s16sIIQ")
MAX_HEADER_BYTES = 1 << 20
# Real headers nest 5 levels (a result's value, its arrays, a shape); no more is ever parsed.
MAX_HEADER_DEPTH = 8
_STRINGS = re.compile(r'"[^"]*"')
_BRACKETS = re.compile(r"[\[\]{}]")
# Frames from the parent to the child are trusted, but still bounded.
MAX_REQUEST_PAYLOAD = 1 << 32
# The largest result (all returned arrays together) the parent accepts from the child.
MAX_RESULT_PAYLOAD = 256 * 2**20
# The sequence number of frames that do not answer a request (the supervisor's "ended" note).
UNSOLICITED = 0xFFFFFFFF

Buffer = bytes | bytearray | memoryview


class ProtocolError(Exception):
    """The other side sent something that is not a well-formed frame of this run."""


@dataclass(frozen=True)
class Frame:
    token: bytes
    seq: int
    header: dict[str, Any]
    payload: bytes | bytearray


def encode_frame(
    token: bytes, seq: int, header: dict[str, Any], payload: Sequence[Buffer] = ()
) -> list[Buffer]:
    """The pieces of one frame, ready for `sendall` one after the other (no big concatenation)."""
    head = json.dumps(header, separators=(",", ":"), allow_nan=False).encode()
    size = sum(memoryview(piece).nbytes for piece in payload)
    return [PREFIX.pack(MAGIC, token, seq, len(head), size), head, *payload]


def _parse_prefix(
    prefix: Buffer, token: bytes | None, max_payload: int
) -> tuple[bytes, int, int, int]:
    magic, got_token, seq, header_len, payload_len = PREFIX.unpack(prefix)
    if magic != MAGIC:
        raise ProtocolError("the channel carried bytes that are not a sandbox frame")
    if token is not None and got_token != token:
        raise ProtocolError("the channel carried a frame with a foreign token")
    if header_len > MAX_HEADER_BYTES:
        raise ProtocolError(f"a frame header of {header_len} bytes is over the cap")
    if payload_len > max_payload:
        raise ProtocolError(f"a frame payload of {payload_len} bytes is over the cap")
    return got_token, seq, header_len, payload_len


def nesting_depth(text: str) -> int:
    """How deep the arrays and objects of a JSON text nest, counted without parsing it.

    Strings are cut out first (a bracket inside one does not nest); what is left is scanned
    for brackets only, so a hostile text of 100,000 `[` costs one linear pass, not a parser's
    recursion.
    """
    # Escaped backslashes, then escaped quotes, go first: what is left of a string has no quote.
    unescaped = text.replace("\\\\", "").replace('\\"', "")
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_STRINGS.sub("", unescaped)):
        if bracket in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _parse_header(raw: Buffer) -> dict[str, Any]:
    try:
        text = bytes(raw).decode()
    except UnicodeDecodeError as error:
        raise ProtocolError(f"a frame header is not UTF-8: {error}") from None
    if nesting_depth(text) > MAX_HEADER_DEPTH:
        raise ProtocolError(f"a frame header nests deeper than {MAX_HEADER_DEPTH} levels")
    try:
        header = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise ProtocolError(f"a frame header is not JSON: {error}") from None
    if not isinstance(header, dict):
        raise ProtocolError("a frame header is not a JSON object")
    return header


class FrameReader:
    """Incremental parser for the parent's non-blocking reads; caps are checked before buffering."""

    def __init__(self, token: bytes, max_payload: int) -> None:
        self._token = token
        self._max_payload = max_payload
        self._buffer = bytearray()

    def feed(self, data: bytes) -> None:
        self._buffer += data
        if len(self._buffer) >= PREFIX.size:
            # Fail early on junk, before a hostile length makes us buffer more.
            _parse_prefix(self._buffer[: PREFIX.size], self._token, self._max_payload)

    def next_frame(self) -> Frame | None:
        if len(self._buffer) < PREFIX.size:
            return None
        token, seq, header_len, payload_len = _parse_prefix(
            self._buffer[: PREFIX.size], self._token, self._max_payload
        )
        end_header = PREFIX.size + header_len
        end = end_header + payload_len
        if len(self._buffer) < end:
            return None
        header = _parse_header(memoryview(self._buffer)[PREFIX.size : end_header])
        payload = bytes(memoryview(self._buffer)[end_header:end])
        del self._buffer[:end]
        return Frame(token, seq, header, payload)


def _receive_exactly(sock: socket.socket, size: int) -> bytearray:
    data = bytearray(size)
    view = memoryview(data)
    got = 0
    while got < size:
        n = sock.recv_into(view[got:], size - got)
        if n == 0:
            raise EOFError("the channel closed")
        got += n
    return data


def read_frame(sock: socket.socket, token: bytes | None) -> Frame:
    """Blocking read of one frame (child side; `token=None` adopts the token of the first frame)."""
    prefix = _receive_exactly(sock, PREFIX.size)
    got_token, seq, header_len, payload_len = _parse_prefix(prefix, token, MAX_REQUEST_PAYLOAD)
    header = _parse_header(_receive_exactly(sock, header_len))
    payload = _receive_exactly(sock, payload_len) if payload_len else bytearray()
    return Frame(got_token, seq, header, payload)


def send_frame(
    sock: socket.socket,
    token: bytes,
    seq: int,
    header: dict[str, Any],
    payload: Sequence[Buffer] = (),
) -> None:
    for piece in encode_frame(token, seq, header, payload):
        sock.sendall(piece)
