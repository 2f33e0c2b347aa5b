"""Printing a command's JSON: valid JSON whatever the terminal's encoding.

Characters are written as they are where standard output can carry them, and as JSON's own
`\\uXXXX` escapes where it cannot (an ASCII locale): a script reads the same data either way.
Characters a terminal acts on (DEL, C1 controls such as U+009B, a one-byte CSI; bidirectional
overrides) are always escaped, since JSON escapes only C0 controls itself: `--json` printed to a
terminal must not recolour it or reorder what it shows.
"""

from __future__ import annotations

import json
import sys

from attention_ref.sandbox.output import CONTROL


def print_json(data: object) -> None:
    text = json.dumps(data, ensure_ascii=False)
    try:
        text.encode(sys.stdout.encoding or "utf-8")
    except UnicodeEncodeError:  # an ASCII locale, or a broken character echoed back
        text = json.dumps(data, ensure_ascii=True)
    # Outside its strings JSON is ASCII, so every such character is inside a string, where
    # its escape stands for the same character.
    print(CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text))
