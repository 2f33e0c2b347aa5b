"""Peer-style pairs graded the way an outside suite would grade them: a learner's own bank in the
store folder whose typed items state the peer's expected expression as their `answer:`, linted,
then `attnquiz check SET ITEM --answer TEXT --json` for each answer of the pair."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from tests.agreement import REQUIRED_AGREEMENT, Row, read_rows
from tests.conftest import Run
from tests.engine.checking.test_checking_agreement import CASES

TABLES = [CASES / "peer_scalar_equivalence_2.tsv", CASES / "peer_scalar_equivalence_3.tsv"]
# Author notations that only a peer writes: Maxima's constants, factorials, inverse and
# reciprocal functions, the imaginary unit, equations; every such row is in the sample.
PEER_NOTATION = re.compile(r"%|factorial|acot|sech|csch|coth|log\(x, |lambda|\bE\b|(?<![\w])i\b|=")
EVERY = 8  # and one row in EVERY of the others, which keeps the test to a few seconds


def sample() -> list[Row]:
    rows = [row for table in TABLES for row in read_rows(table)]
    return [
        row
        for number, row in enumerate(rows)
        if number % EVERY == 0 or PEER_NOTATION.search(row.target)
    ]


@pytest.fixture
def peer_bank(store_home: Path) -> tuple[Path, dict[str, str]]:
    """The bank `peer` in the store folder: one expression item per expected expression."""
    item_ids: dict[str, str] = {}
    items = []
    for row in sample():
        if row.target in item_ids:
            continue
        item_ids[row.target] = f"pair-{len(item_ids) + 1}"
        items.append(
            {
                "id": item_ids[row.target],
                "kind": "expression",
                "prompt": "Type an expression equal to the one your teacher has in mind.",
                "answer": row.target,
            }
        )
    bank = {"format_version": 1, "set": "peer", "title": "Peer-style pairs", "items": items}
    path = store_home / "quizzes" / "peer.yaml"
    path.write_text(yaml.safe_dump(bank, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path, item_ids


def test_a_bank_of_peer_expected_expressions_loads_and_lints(
    run: Run, peer_bank: tuple[Path, dict[str, str]]
) -> None:
    path, item_ids = peer_bank
    assert len(item_ids) >= 50
    result = run("lint", str(path))
    assert result.returncode == 0, result.stderr


def test_check_json_agrees_with_the_peer_verdicts(
    run: Run, peer_bank: tuple[Path, dict[str, str]]
) -> None:
    _, item_ids = peer_bank
    rows = sample()
    misjudged = []
    for row in rows:
        result = run("check", "peer", item_ids[row.target], f"--answer={row.answer}", "--json")
        verdict = json.loads(result.stdout)
        got = "correct" if verdict["correct"] else "wrong" if verdict["valid"] else "unreadable"
        assert result.returncode == (0 if verdict["correct"] else 1), result.stderr
        if got != row.verdict:
            misjudged.append(f"{row.where}: {row.answer!r} expected {row.verdict}, got {got}")
    agreement = 1 - len(misjudged) / len(rows)
    print(f"\npeer pairs through check --json: {agreement:.1%} of {len(rows)}", *misjudged)
    assert agreement >= REQUIRED_AGREEMENT, misjudged
