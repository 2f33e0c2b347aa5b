"""Printing a command's JSON: valid JSON whatever the terminal's encoding.

Characters are written as they are where standard output can carry them, and as JSON's own
`\\uXXXX` escapes where it cannot (an ASCII locale): a script reads the same data either way.
"""

from __future__ import annotations

import json
import sys


def print_json(data: object) -> None:
    text = json.dumps(data, ensure_ascii=False)
    try:
        text.encode(sys.stdout.encoding or "utf-8")
    except UnicodeEncodeError:  # an ASCII locale, or a broken character echoed back
        text = json.dumps(data, ensure_ascii=True)
    print(text)
