"""The parent's side of the channel trusts nothing: junk, foreign frames and odd arrays fail."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attention_ref.sandbox import Limits, protocol
from attention_ref.sandbox.arrays import ArrayFormatError, decode_arrays, encode_arrays
from attention_ref.sandbox.output import CappedTail

TOKEN = b"t" * protocol.TOKEN_BYTES


def frame_bytes(token: bytes = TOKEN, seq: int = 1, header: dict | None = None) -> bytes:
    pieces = protocol.encode_frame(token, seq, header or {"kind": "result"}, [b"abc"])
    return b"".join(bytes(p) for p in pieces)


def test_a_well_formed_frame_is_read_back() -> None:
    reader = protocol.FrameReader(TOKEN, max_payload=10)
    data = frame_bytes()
    reader.feed(data[:7])
    assert reader.next_frame() is None
    reader.feed(data[7:])
    frame = reader.next_frame()
    assert frame is not None
    assert (frame.seq, frame.header, bytes(frame.payload)) == (1, {"kind": "result"}, b"abc")


def test_a_printed_fake_verdict_is_not_a_frame() -> None:
    reader = protocol.FrameReader(TOKEN, max_payload=10)
    with pytest.raises(protocol.ProtocolError, match="not a sandbox frame"):
        reader.feed(json.dumps({"passed": True, "verdict": "pass"}).encode() * 3)


def test_a_frame_with_another_runs_token_is_rejected() -> None:
    reader = protocol.FrameReader(TOKEN, max_payload=10)
    with pytest.raises(protocol.ProtocolError, match="foreign token"):
        reader.feed(frame_bytes(token=b"x" * protocol.TOKEN_BYTES))


def test_huge_lengths_are_refused_before_anything_is_buffered() -> None:
    reader = protocol.FrameReader(TOKEN, max_payload=1000)
    prefix = protocol.PREFIX.pack(protocol.MAGIC, TOKEN, 1, 2, 10**12)
    with pytest.raises(protocol.ProtocolError, match="over the cap"):
        reader.feed(prefix)
    header_bomb = protocol.PREFIX.pack(protocol.MAGIC, TOKEN, 1, 10**9, 0)
    with pytest.raises(protocol.ProtocolError, match="over the cap"):
        protocol.FrameReader(TOKEN, 1000).feed(header_bomb)


def test_a_header_must_be_a_json_object() -> None:
    head = b"[1, 2]"
    data = protocol.PREFIX.pack(protocol.MAGIC, TOKEN, 1, len(head), 0) + head
    reader = protocol.FrameReader(TOKEN, 10)
    reader.feed(data)
    with pytest.raises(protocol.ProtocolError, match="not a JSON object"):
        reader.next_frame()


numeric_dtypes = st.one_of(
    hnp.boolean_dtypes(),
    hnp.integer_dtypes(),
    hnp.unsigned_integer_dtypes(),
    hnp.floating_dtypes(),
    hnp.complex_number_dtypes(),
)


# No deadline: a loaded machine may take longer than 200 ms on one example; that is no bug.
@settings(deadline=None)
@given(st.lists(hnp.arrays(numeric_dtypes, hnp.array_shapes(min_dims=0, min_side=0)), max_size=4))
def test_numeric_arrays_survive_the_round_trip(arrays: list[np.ndarray]) -> None:
    specs, views = encode_arrays(arrays)
    payload = b"".join(bytes(v) for v in views)
    back = decode_arrays(json.loads(json.dumps(specs)), payload)
    assert len(back) == len(arrays)
    for original, copy in zip(arrays, back, strict=True):
        assert copy.dtype == original.dtype and copy.shape == original.shape
        np.testing.assert_array_equal(copy, original)


@pytest.mark.parametrize(
    ("specs", "payload", "problem"),
    [
        ([{"dtype": "|O", "shape": [1]}], b"\0" * 8, "unsupported dtype"),
        ([{"dtype": "<U4", "shape": [1]}], b"\0" * 16, "unsupported dtype"),
        ([{"dtype": "<f8", "shape": [2]}], b"\0" * 8, "shorter"),
        ([{"dtype": "<f8", "shape": [1]}], b"\0" * 9, "longer"),
        ([{"dtype": "<f8", "shape": [-1]}], b"", "invalid array shape"),
        ([{"dtype": "<f8", "shape": [1], "extra": 1}], b"\0" * 8, "malformed"),
        ({"dtype": "<f8"}, b"", "malformed"),
    ],
)
def test_descriptions_that_are_not_plain_numbers_are_refused(
    specs: object, payload: bytes, problem: str
) -> None:
    with pytest.raises(ArrayFormatError, match=problem):
        decode_arrays(specs, payload)


def test_object_arrays_are_never_sent() -> None:
    with pytest.raises(ArrayFormatError):
        encode_arrays([np.array([object()])])


def test_the_output_tail_keeps_the_end_and_counts_everything() -> None:
    tail = CappedTail(limit=8)
    for chunk in (b"0123456789", b"abc", b"\x1b[2Jok\n"):
        tail.feed(chunk)
    assert tail.total == 10 + 3 + 7
    # The escape sequence that would clear the screen is shown, not performed.
    assert tail.text() == "c\\x1b[2Jok\n"


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="seconds_per_call"):
        Limits(seconds_per_call=0)
    assert Limits().memory_bytes == 2 * 2**30


def _raw_frame(head: bytes) -> bytes:
    return protocol.PREFIX.pack(protocol.MAGIC, TOKEN, 1, len(head), 0) + head


@pytest.mark.parametrize(
    "head",
    [b"[" * 100_000, b'{"a":' * 30_000 + b"1" + b"}" * 30_000, b"[" * 9 + b"]" * 9],
)
def test_a_deeply_nested_header_is_refused_without_parsing_it(head: bytes) -> None:
    reader = protocol.FrameReader(TOKEN, max_payload=10)
    reader.feed(_raw_frame(head))
    with pytest.raises(protocol.ProtocolError, match="nests deeper"):
        reader.next_frame()


@settings(deadline=None)
@given(st.recursive(st.none() | st.integers() | st.text(), lambda inner: st.lists(inner)))
def test_nesting_depth_agrees_with_the_parsed_value(value: object) -> None:
    def depth(item: object) -> int:
        return 1 + max(map(depth, item), default=0) if isinstance(item, list) else 0

    assert protocol.nesting_depth(json.dumps(value)) == depth(value)


@pytest.mark.parametrize(
    "shape",
    [[2**39, 2**39, 0], [0] + [2**20] * 3, [2**31, 2**31], [2**29], [2**15, 2**15]],
)
def test_shapes_beyond_the_cap_are_refused_even_when_empty(shape: list[int]) -> None:
    with pytest.raises(ArrayFormatError, match=r"size cap|invalid array shape"):
        decode_arrays([{"dtype": "<f8", "shape": shape}], b"")
