"""Units on typed numbers: `16 MiB`, `16384 KiB`, `10 FLOP/byte`, `2062 ms`, `1.07 GFLOP`.

An answer to a question asked in some unit may carry any unit of the same kind; it is converted
with pint (its registry, plus FLOP and the counting words `million` and `thousand`) before it is
compared. A unit of another kind (`16 s` for a size in MiB, `GFLOP/s` for GFLOP) is wrong, and
says so; decimal and binary prefixes are different units (`16 MB` is not `16 MiB`). pint loads
only when an answer carries a unit.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from engine.errors import AnswerError

# A unit after a number: letters (µ too), with `/`, `·`, `*`, `^` and small powers between them.
TRAILING_UNIT = re.compile(
    r"(?<![A-Za-z_])((?:[A-Za-zµμ%]+(?:\^?-?\d)?)(?:\s*(?:/|·|\*|\bper\b)\s*[A-Za-zµμ]+(?:\^?-?\d)?)*)"
    r"\s*$"
)
# Spellings pint does not know, or knows as something else (K is kelvin, M is a prefix).
_SPELLINGS = {
    "FLOPs": "FLOP", "FLOPS": "FLOP", "flops": "FLOP", "flop": "FLOP", "Flop": "FLOP",
    "Flops": "FLOP", "bytes": "byte", "Bytes": "byte", "Byte": "byte", "KB": "kB", "M": "million",
    "sec": "s", "secs": "s", "seconds": "s", "us": "µs", "μs": "µs", "per": "/",
}  # fmt: skip
_FLOP_PREFIXED = re.compile(r"^([kMGTP])(FLOPs?|FLOPS|flops?)$")


class UnitMismatch(Exception):
    """The answer's unit is of another kind than the question's; the message says so."""


@lru_cache(maxsize=1)
def registry() -> Any:
    import pint

    units: Any = pint.UnitRegistry()
    units.define("FLOP = [floating_point_operation] = flop")
    units.define("thousand = 1e3")
    units.define("million = 1e6")
    units.define("billion = 1e9")
    return units


def known_unit(text: str) -> bool:
    """Whether `text` is a unit pint can read (after the spellings above)."""
    try:
        _parse(text)
    except AnswerError:
        return False
    return True


def convert(value: float, unit: str, target: str) -> float:
    """`value unit` expressed in `target`; raises UnitMismatch when the kinds differ."""
    import pint

    given, wanted = _parse(unit), _parse(target)
    try:
        return float((value * given).to(wanted).magnitude)
    except pint.DimensionalityError:
        raise UnitMismatch(
            f"`{unit}` is a different kind of unit from {target}, the unit the question asks for"
        ) from None
    except Exception:  # pint on odd text can fail in its own ways (a KeyError for 'ampere')
        raise AnswerError(f"could not read this: `{unit.strip()}` is not a unit") from None


def _parse(text: str) -> Any:
    words = re.split(r"(\s*[/·*]\s*|\s+per\s+|\^-?\d)", text.strip())
    spelled = []
    for word in words:
        bare = word.strip()
        prefixed = _FLOP_PREFIXED.match(bare)
        if prefixed:
            spelled.append(prefixed.group(1) + "FLOP")
        elif bare in {"·", "*"}:
            spelled.append("*")
        else:
            spelled.append(_SPELLINGS.get(bare, word))
    unit_text = "".join(spelled)
    for spelling in (unit_text, unit_text.lower()):  # `Mebibytes`, `Seconds`: capitalised
        try:
            return registry().parse_units(spelling)
        except Exception:  # pint fails on odd text in its own ways (AssertionError, KeyError)
            if not re.fullmatch(r"[A-Z][a-z]{3,}", unit_text):
                break
    raise AnswerError(f"could not read this: `{text.strip()}` is not a unit")


_COUNTING_WORDS = {"thousand": 1e3, "million": 1e6, "billion": 1e9}


def unprefixed_factor(target: str) -> float | None:
    """How many of the unit without its prefix one `target` is: 2**20 for MiB (bytes), 1e9 for
    GFLOP, 1e6 for `million` (a plain count); None when `target` is no unit pint reads."""
    try:
        units = registry()
        parsed = _parse(target)
        factor = 1.0
        for name, power in parsed._units.items():
            if name in _COUNTING_WORDS:
                factor *= _COUNTING_WORDS[name] ** power
                continue
            ((_, bare, suffix),) = units.parse_unit_name(name)
            factor *= float(units.Quantity(1, name).to(bare + suffix).magnitude) ** power
        return factor
    except Exception:  # pint fails in its own ways on odd text; a missing factor is no error
        return None
