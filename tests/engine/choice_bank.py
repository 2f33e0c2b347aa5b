"""A small bank of multiple-choice cards (one with a hint, one with an explanation).

Choice cards are graded in the test's own process, so session tests built on them never wait on
the checking worker, whatever the load of the machine.
"""

from __future__ import annotations

from pathlib import Path

CHOICES = """format_version: 1
set: choices
title: Choice cards, one with a hint
items:
  - id: axis
    kind: choice
    prompt: Along which axis of the scores does the softmax run?
    options: [the key axis (last), the query axis (first)]
    answer: 1
    shuffle: false
    hint: Each query spreads its weight over the keys.
  - id: scale
    kind: choice
    prompt: What are the scores divided by?
    options: [sqrt(d_k), d_k]
    answer: 1
    shuffle: false
    explanation: The variance of a dot product of d_k unit components is d_k.
  - id: mask
    kind: choice
    prompt: What does a causal mask set the future scores to?
    options: [minus infinity, zero]
    answer: 1
    shuffle: false
"""


def write_choices(home: Path) -> None:
    """Add the bank to the store folder as set `choices`."""
    (home / "quizzes" / "choices.yaml").write_text(CHOICES)
