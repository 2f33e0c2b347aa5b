"""A learner's code file, read the way docs/spec.md promises: the size first, then at most 1 MB,
as UTF-8 text. Anything else is an `UnreadableSubmission` with one line saying why."""

from __future__ import annotations

from pathlib import Path


class UnreadableSubmission(ValueError):
    """The file cannot be graded at all: missing, not a regular file, too large, not text."""


def read_submission(path: Path) -> str:
    from attention_ref.bounded_read import read_at_most
    from attention_ref.discovery import MAX_SOURCE_BYTES

    try:
        data = read_at_most(path, MAX_SOURCE_BYTES)
    except FileNotFoundError:
        raise UnreadableSubmission(f"no such file: {path}") from None
    except OSError as error:
        raise UnreadableSubmission(f"cannot read {path}: {error.strerror or error}") from None
    if data is None:
        raise UnreadableSubmission(f"{path} is larger than 1 MB; submit the function alone")
    try:
        return data.decode("utf-8-sig")  # a byte-order mark is no part of the code
    except UnicodeDecodeError as error:
        raise UnreadableSubmission(f"{path} is not UTF-8 text (byte {error.start})") from None
