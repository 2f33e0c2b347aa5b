"""Inside the sandbox: what the submitted function returned, as arrays that can cross the channel.

A tuple travels item by item; so does a list (or other sequence) whose items are arrays, such as
`[out, weights]`: the parent decides, knowing the expected shape, whether such a list is the output
built row by row or an (output, weights) pair. Anything that is not numbers (None, a dict, a str,
an object whose `__array__` raises) is not an error of the code: it travels as a short description
of what was returned, and the parent grades it as a wrong output.

Everything here runs in the submission's process, so any step may run the learner's code
(`__array__`, `__len__`, `__repr__`, a hostile `__name__`): each is guarded.
"""

from __future__ import annotations

import reprlib
from collections.abc import Sequence
from typing import Any

_MAX_DESCRIPTION = 160
_NOT_SEQUENCES = (str, bytes, bytearray, memoryview, range, tuple, dict)


def convert(value: object, np: Any, max_items: int) -> tuple[dict[str, Any], list[Any]]:
    """The value's form ("array", "tuple", "list" or "other"), the items that are not arrays
    (`not_arrays`: [index, description] pairs) and the numeric arrays, in order.

    A tuple's items after the first `max_items` are dropped (only its first item is graded).
    """
    if isinstance(value, tuple) or _is_sequence(value):
        items = _listed(value)
        if items is not None and isinstance(value, tuple):
            return _items("tuple", items[:max_items], np)
        if items is not None and len(items) <= max_items:
            form, arrays = _items("list", items, np)
            if any(a.ndim for a in arrays):  # not a list of numbers: read item by item
                return form, arrays
    array, why = _as_array(value, np)
    if array is None:
        return {"form": "other", "not_arrays": [[0, _describe(value, why)]]}, []
    return {"form": "array", "not_arrays": []}, [array]


def _items(form: str, items: list[object], np: Any) -> tuple[dict[str, Any], list[Any]]:
    arrays, not_arrays = [], []
    for index, item in enumerate(items):
        array, why = _as_array(item, np)
        if array is None:
            not_arrays.append([index, _describe(item, why)])
        else:
            arrays.append(array)
    return {"form": form, "not_arrays": not_arrays}, arrays


def _listed(value: object) -> list[object] | None:
    try:
        return list(value)  # type: ignore[call-overload]
    except MemoryError:
        raise
    except BaseException:  # a hostile __iter__ or __len__
        return None


def _is_sequence(value: object) -> bool:
    try:
        return isinstance(value, list) or (
            isinstance(value, Sequence) and not isinstance(value, _NOT_SEQUENCES)
        )
    except Exception:
        return False


def _as_array(item: object, np: Any) -> tuple[Any, str]:
    """A numeric array, or None and why NumPy gave none ("" when it gave non-numbers)."""
    try:
        array = np.asarray(item)
    except MemoryError:
        raise
    except BaseException as error:  # a hostile __array__ may raise anything
        return None, f"that NumPy cannot turn into an array ({_error_text(error)})"
    if array.dtype.kind not in "biufc":
        return None, ""
    return array, ""


def _describe(item: object, why: str) -> str:
    """ "None", or "a TYPE (SHORT REPR) WHY", at most _MAX_DESCRIPTION characters."""
    if item is None:
        return "None"
    try:
        name = str(type(item).__name__)
    except BaseException:
        name = "object"
    article = "an" if name[:1].lower() in "aeiou" else "a"
    try:
        shown = _short_repr(item)
    except BaseException:  # a hostile __repr__
        shown = ""
    text = " ".join(f"{article} {name} {shown} {why}".split())
    return text if len(text) <= _MAX_DESCRIPTION else text[: _MAX_DESCRIPTION - 3] + "..."


def _short_repr(item: object) -> str:
    shorter = reprlib.Repr()
    shorter.maxstring = shorter.maxother = 40
    shorter.maxdict = shorter.maxset = shorter.maxlist = shorter.maxtuple = 3
    text = " ".join(str(shorter.repr(item)).split())
    if not text.isprintable():
        return ""
    return f"({text if len(text) <= 60 else text[:57] + '...'})"


def _error_text(error: BaseException) -> str:
    try:
        message = " ".join(str(error).split())
    except BaseException:
        message = ""
    try:
        name = str(type(error).__name__)
    except BaseException:
        name = "error"
    return f"{name}: {message[:80]}" if message else name
