"""The index letters a line uses: any letter not otherwise bound may be a summation index.

A drill declares its indices (a, b for vector components; i, j, k for softmax positions), but
learners and the seeds write Σ_i q_i k_i, `\\sum_{i=1}^{d_k}`, Σ_l e^{s_l} or q_1 k_1 for the
same thing. `with_indices_used` widens the assumptions with every letter a line uses as an index
(after Σ or sum, or as the subscript of a random vector or an indexed family) when that letter
names nothing else in the drill: a subscript of a random vector runs over its components, and
any other new index over the same range as the drill's own indices. Digits are accepted as
component subscripts (q_1 k_1 is one fixed component).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

from engine.checking.derivation.notation import plain_subscripts
from engine.checking.derivation.step import Assumptions

_SUM_HEAD = re.compile(
    r"(?:Σ|∑|\\sum|\\Sigma|(?<![A-Za-z0-9_])sum)(?:\s*_\s*[{(]?|\s+over)\s*([A-Za-z])"
    r"(?![A-Za-z0-9_])"
)
# Letters that never name an index: Euler's number, the expectation, a derivative's d.
_NEVER = {"e", "E", "d"}


def with_indices_used(assumptions: Assumptions, texts: Iterable[str]) -> Assumptions:
    """`assumptions` with the index letters the texts use and the drill does not declare."""
    a = assumptions
    known = {*a.vector_indices, *a.indices}
    taken = _names_taken(a)
    vector_indices: list[str] = []
    other_indices: list[str] = []
    families = _families(a)
    for text in map(plain_subscripts, texts):
        for vector in a.normal_vectors:
            for letter in _subscripts(text, vector, digits=True):
                if letter not in known and (letter.isdigit() or letter not in taken):
                    vector_indices.append(letter)
        for family in families:
            for letter in _subscripts(text, family, digits=False):
                if letter not in known and letter not in taken:
                    other_indices.append(letter)
        for letter in _SUM_HEAD.findall(text):
            if letter in known or letter in taken:
                continue
            (vector_indices if a.normal_vectors and not a.indices else other_indices).append(letter)
    vector_indices = [i for i in dict.fromkeys(vector_indices)]
    other_indices = [i for i in dict.fromkeys(other_indices) if i not in vector_indices]
    if not vector_indices and not other_indices:
        return a
    return dataclasses.replace(
        a,
        vector_indices=(*a.vector_indices, *vector_indices),
        indices=(*a.indices, *other_indices),
    )


def _subscripts(text: str, stem: str, *, digits: bool) -> list[str]:
    letter = r"[A-Za-z0-9]+" if digits else r"[A-Za-z]"
    pattern = rf"(?<![A-Za-z0-9_\\]){re.escape(stem)}_\s*{{?\s*({letter})(?![A-Za-z0-9_])"
    return [found for found in re.findall(pattern, text) if digits or not found.isdigit()]


def _families(a: Assumptions) -> set[str]:
    """The stems of indexed names (s of s_i, g of g_t) other than the random vectors."""
    declared = {*a.indices, *a.vector_indices}
    stems = set()
    for name in [*a.symbols, *a.definitions]:
        stem, underscore, index = name.rpartition("_")
        if underscore and index in declared and stem:
            stems.add(stem)
    return stems


def _names_taken(a: Assumptions) -> set[str]:
    """Every plain name the drill already gives a meaning to."""
    names = {*a.normal_vectors, *a.symbols, *a.matrices, *a.definitions, *a.positive, *a.integer}
    names |= {a.dimension, a.count}
    for name, spellings in a.aliases.items():
        names |= {name, *spellings}
    return names | _NEVER
