"""Set 15 covers the seed pages: seed_coverage.yaml maps every fact, number, formula, exercise
and pitfall of the five pages to the items (`drill:` derivation drills, `timed:` parts of the
timed drill) that teach it, and every one of those exists.

The mapping also runs the other way: every item of the bank teaches at least one listed fact,
so a new item comes with the fact it is for.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from engine.drills.loader import load_drill_file
from engine.paths import builtin_dir
from tests.engine.cards.bank_answers import set_15

COVERAGE = Path(__file__).with_name("seed_coverage.yaml")


@pytest.fixture(scope="module")
def coverage() -> dict[str, dict[str, list[str]]]:
    return yaml.safe_load(COVERAGE.read_text(encoding="utf-8"))


def drill_ids() -> set[str]:
    loaded = load_drill_file(builtin_dir("drills") / "15.yaml", set_name="15")
    assert loaded.problems == []
    return {d.id for d in loaded.drills}


def timed_part_ids() -> set[str]:
    timed = yaml.safe_load((builtin_dir("drills") / "15-timed.yaml").read_text(encoding="utf-8"))
    return {part["id"] for part in timed["timed"]["parts"]}


def test_all_five_seed_pages_are_listed_with_their_facts(coverage) -> None:
    assert [seed[:3] for seed in coverage] == ["000", "001", "002", "003", "004"]
    assert all(len(facts) >= 8 for facts in coverage.values())
    assert all(ids for facts in coverage.values() for ids in facts.values())


def test_every_listed_id_exists(coverage) -> None:
    items, drills, parts = set(set_15().ids), drill_ids(), timed_part_ids()
    missing = [
        (fact, ref)
        for facts in coverage.values()
        for fact, refs in facts.items()
        for ref in refs
        if not (
            (ref.startswith("drill:") and ref.removeprefix("drill:") in drills)
            or (ref.startswith("timed:") and ref.removeprefix("timed:") in parts)
            or ref in items
        )
    ]
    assert missing == []


def test_every_item_and_drill_teaches_a_listed_fact(coverage) -> None:
    listed = {ref for facts in coverage.values() for refs in facts.values() for ref in refs}
    assert set(set_15().ids) - listed == set()
    assert {f"drill:{d}" for d in drill_ids()} - listed == set()


def test_the_facts_the_issue_names_are_covered(coverage) -> None:
    # Spot checks that the mapping keeps the specific numbers the seeds give.
    facts = " | ".join(f for page in coverage.values() for f in page)
    for needle in ("4096 tokens", "16 MiB", "d_k = 512", "[0, 0, 10]", "[2.0, 1.0, 0.1]", "I₃"):
        assert needle in facts, needle
