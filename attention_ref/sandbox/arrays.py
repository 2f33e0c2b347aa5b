"""Arrays on the channel: a JSON description (dtype, shape) per array plus its raw C-order bytes.

Only numeric dtypes travel (bool, integers, floats, complex). `decode_arrays` is what the parent
applies to bytes from the child, so it trusts nothing: it re-derives every size and offset.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

NUMERIC_KINDS = "biufc"
MAX_DIMENSIONS = 32
MAX_ITEMS = 64
# No array that crosses the channel has more elements (counting an empty axis as 1) than this.
MAX_ELEMENTS = 2**28
_DTYPE_SPELLING = re.compile(r"[<>|=][biufc][0-9]{1,2}")


class ArrayFormatError(ValueError):
    """A description or payload that does not describe numeric arrays."""


def is_numeric(array: NDArray[Any]) -> bool:
    return array.dtype.kind in NUMERIC_KINDS


def encode_arrays(arrays: Sequence[NDArray[Any]]) -> tuple[list[dict[str, Any]], list[memoryview]]:
    """Descriptions and zero-copy byte views of numeric arrays (made C-contiguous first)."""
    specs: list[dict[str, Any]] = []
    views: list[memoryview] = []
    for array in arrays:
        if not is_numeric(array):
            raise ArrayFormatError(f"dtype {array.dtype} is not numeric")
        # Not np.ascontiguousarray: it turns 0-d arrays (returned scalars) into 1-d ones.
        contiguous = array if array.flags.c_contiguous else array.copy(order="C")
        specs.append({"dtype": contiguous.dtype.str, "shape": list(contiguous.shape)})
        views.append(contiguous.reshape(-1).view(np.uint8).data)
    return specs, views


def _dtype(spec: object) -> np.dtype[Any]:
    if not isinstance(spec, str) or not _DTYPE_SPELLING.fullmatch(spec):
        raise ArrayFormatError(f"unsupported dtype {_brief(spec)}")
    try:
        dtype = np.dtype(spec)
    except TypeError:
        raise ArrayFormatError(f"unsupported dtype {spec!r}") from None
    if dtype.kind not in NUMERIC_KINDS:
        raise ArrayFormatError(f"dtype {spec!r} is not numeric")
    return dtype


def _shape(spec: object) -> tuple[int, ...]:
    """A shape whose every size, and the product of its non-zero sizes, is within bounds.

    An empty array may still have huge sizes (2^39 x 2^39 x 0 holds nothing) that overflow
    NumPy's size arithmetic and every later comparison, so zeros do not excuse the others.
    """
    if not isinstance(spec, list) or len(spec) > MAX_DIMENSIONS:
        raise ArrayFormatError("an array shape must be a list of at most 32 sizes")
    if not all(type(n) is int and 0 <= n <= MAX_ELEMENTS for n in spec):
        raise ArrayFormatError(f"invalid array shape {_brief(spec)}")
    extent = 1
    for n in spec:
        extent *= max(n, 1)
        if extent > MAX_ELEMENTS:
            raise ArrayFormatError(f"an array shape of {_brief(spec)} is over the size cap")
    return tuple(spec)


def _brief(spec: object) -> str:
    text = repr(spec)
    return text if len(text) <= 80 else text[:77] + "..."


def decode_arrays(specs: object, payload: bytes | bytearray) -> list[NDArray[Any]]:
    """Rebuild arrays from descriptions and one payload; every byte must be accounted for."""
    if not isinstance(specs, list) or len(specs) > MAX_ITEMS:
        raise ArrayFormatError("the array list is malformed")
    arrays: list[NDArray[Any]] = []
    offset = 0
    for spec in specs:
        if not isinstance(spec, dict) or set(spec) != {"dtype", "shape"}:
            raise ArrayFormatError("an array description is malformed")
        dtype = _dtype(spec["dtype"])
        shape = _shape(spec["shape"])
        count = 1
        for n in shape:
            count *= n
        size = count * dtype.itemsize
        if offset + size > len(payload):
            raise ArrayFormatError("the payload is shorter than its arrays")
        if count == 0:
            arrays.append(np.empty(shape, dtype=dtype))
        else:
            flat = np.frombuffer(payload, dtype=dtype, count=count, offset=offset)
            arrays.append(flat.reshape(shape).copy())
        offset += size
    if offset != len(payload):
        raise ArrayFormatError("the payload is longer than its arrays")
    return arrays
