"""`kind:` says what a file is (bank, drills, timed-drill, rapid-drill): lint reads a file as its
kind wherever it lies, a kind that contradicts the file is one problem at its line, and a file
without `kind:` (everything written before it) loads exactly as before, by its place."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from engine.bank.catalog import open_set
from engine.drills.loader import open_drill_set
from engine.drills.rapid.file import load_rapid_drill, rapid_drill_file
from engine.drills.timed.file import load_timed_drill, timed_drill_file
from engine.errors import BankError
from tests.conftest import Run

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = {
    "quizzes/15.yaml": "bank",
    "quizzes/15/exercises.yaml": "bank",
    "drills/15.yaml": "drills",
    "drills/15-timed.yaml": "timed-drill",
    "drills/15-rapid.yaml": "rapid-drill",
}


def old_style(shipped: str, set_name: str | None = None) -> str:
    """A shipped file as a user wrote it before `kind:` existed (and renamed to `set_name`)."""
    text = (ROOT / shipped).read_text(encoding="utf-8")
    text, removed = re.subn(r"(?m)^kind: [a-z-]+\n", "", text)
    assert removed == 1
    if set_name is not None:
        text, renamed = re.subn(r'(?m)^set: "?15"?$', f"set: {set_name}", text)
        assert renamed == 1
    return text


def without_lines(entries: tuple[Any, ...]) -> list[dict[str, Any]]:
    return [entry.model_dump(exclude={"line"}) for entry in entries]


@pytest.mark.parametrize(("shipped", "kind"), sorted(SHIPPED.items()))
def test_every_shipped_file_says_what_it_is(shipped: str, kind: str) -> None:
    header = (ROOT / shipped).read_text(encoding="utf-8").split("\n\n")[0]
    assert re.search(rf"(?m)^format_version: 1\nkind: {kind}$", header), shipped


def test_a_users_old_banks_without_kind_load_as_before(store_home: Path) -> None:
    mine = store_home / "quizzes" / "mine"
    mine.mkdir()
    (mine / "a.yaml").write_text(old_style("quizzes/15.yaml", "mine"), encoding="utf-8")
    (mine / "b.yaml").write_text(old_style("quizzes/15/exercises.yaml", "mine"), encoding="utf-8")
    theirs, ours = open_set("mine", store_home), open_set("15", store_home)
    assert without_lines(theirs.items) == without_lines(ours.items)
    assert len(theirs.items) == len(ours.items) > 100


def test_a_users_old_drills_without_kind_load_as_before(store_home: Path) -> None:
    drills = store_home / "drills"
    drills.mkdir()
    (drills / "mine.yaml").write_text(old_style("drills/15.yaml", "mine"), encoding="utf-8")
    theirs, ours = open_drill_set("mine", store_home), open_drill_set("15", ROOT / "no-store")
    assert without_lines(theirs.drills) == without_lines(ours.drills)
    assert len(theirs.drills) == 6


def test_a_users_old_timed_and_rapid_drills_without_kind_load_as_before(
    store_home: Path,
) -> None:
    qset = open_set("15", store_home)
    shipped_timed = timed_drill_file("15", ROOT / "no-store")
    shipped_rapid = rapid_drill_file("15", ROOT / "no-store")
    assert shipped_timed is not None and shipped_rapid is not None
    builtin_timed = load_timed_drill(*shipped_timed, qset)
    builtin_rapid = load_rapid_drill(*shipped_rapid, "15")
    drills = store_home / "drills"
    drills.mkdir()
    for name in ("15-timed.yaml", "15-rapid.yaml"):
        (drills / name).write_text(old_style(f"drills/{name}"), encoding="utf-8")
    timed_found, rapid_found = (
        timed_drill_file("15", store_home),
        rapid_drill_file("15", store_home),
    )
    assert timed_found is not None and timed_found[0] == drills / "15-timed.yaml"
    assert rapid_found is not None and rapid_found[0] == drills / "15-rapid.yaml"
    timed, rapid = load_timed_drill(*timed_found, qset), load_rapid_drill(*rapid_found, "15")
    assert timed.parts == builtin_timed.parts and timed.limit_seconds == builtin_timed.limit_seconds
    assert rapid.section == builtin_rapid.section


DRILL_FILE = """\
format_version: 1
kind: drills
set: 15
title: One drill
drills:
  - id: say-it
    title: Say why
    goal: Say why the scores are scaled.
    steps:
      - ask: Why divide by the square root of d_k?
        expect: to keep the variance of the scores at 1
        hint: Think of the variance of a dot product.
        check: self-rated
    target: the scores keep unit variance
"""

BANK_FILE = """\
format_version: 1
kind: bank
set: demo
title: Demo
items:
  - id: one
    kind: recall
    prompt: Say the equation.
    back: softmax(Q Kᵀ / √d_k) V
"""


def lint(run: Run, path: Path, text: str) -> tuple[int, str, str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    result = run("lint", str(path))
    assert "Traceback" not in result.stderr
    return result.returncode, result.stdout, result.stderr


def test_lint_reads_a_drill_file_outside_drills_as_the_drills_it_says_it_is(
    run: Run, tmp_path: Path
) -> None:
    code, out, err = lint(run, tmp_path / "drafts" / "scaling.yaml", DRILL_FILE)
    assert (code, err) == (0, ""), err
    assert "1 file(s), 1 items: no problems" in out
    # Without `kind:` the place decides, as before: outside drills/ a file is a bank.
    code, _, err = lint(
        run, tmp_path / "old" / "scaling.yaml", DRILL_FILE.replace("kind: drills\n", "")
    )
    assert code == 2 and "unknown field 'drills'" in err


def test_lint_reads_a_rapid_drill_outside_drills_by_its_kind(run: Run, tmp_path: Path) -> None:
    text = (ROOT / "drills" / "15-rapid.yaml").read_text(encoding="utf-8")
    code, out, err = lint(run, tmp_path / "drafts" / "shapes.yaml", text)
    assert (code, err) == (0, ""), err
    assert "no problems" in out


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (DRILL_FILE.replace("kind: drills", "kind: bank"), "make it `kind: drills`"),
        (BANK_FILE.replace("kind: bank", "kind: drills"), "make it `kind: bank`"),
        (BANK_FILE.replace("kind: bank", "kind: timed-drill"), "make it `kind: bank`"),
    ],
    ids=["bank-with-drills", "drills-with-items", "timed-with-items"],
)
def test_a_kind_that_contradicts_the_contents_is_one_problem_at_its_line(
    run: Run, tmp_path: Path, text: str, says: str
) -> None:
    path = tmp_path / "drafts" / "wrong.yaml"
    code, _, err = lint(run, path, text)
    problems = [line for line in err.splitlines() if line.startswith(str(path))]
    assert code == 2
    assert problems == [problems[0]] and problems[0].startswith(f"{path}:2: kind: "), err
    assert says in problems[0]


def test_an_unknown_file_kind_is_one_problem_at_its_line(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "quizzes" / "demo.yaml"
    code, _, err = lint(run, path, BANK_FILE.replace("kind: bank", "kind: quiz"))
    assert code == 2
    assert (
        f"{path}:2: file kind 'quiz' is not one of: bank, drills, timed-drill, rapid-drill" in err
    )
    assert err.count(f"{path}:") == 1, err


def test_lint_says_when_a_file_lies_where_another_kind_is_read(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "quizzes" / "15.yaml"
    code, _, err = lint(run, path, DRILL_FILE)
    assert code == 2
    assert f"{path}:2: kind: drills says this is a drill file, which belongs in drills/" in err
    assert "where attnquiz reads a bank (quizzes/" in err
    assert err.count(f"{path}:") == 1, err  # read as the drills it is: nothing else is wrong


def test_a_drill_file_among_a_users_banks_is_one_clear_problem(store_home: Path) -> None:
    (store_home / "quizzes" / "scaling.yaml").write_text(
        DRILL_FILE.replace("set: 15", "set: scaling"), encoding="utf-8"
    )
    with pytest.raises(BankError) as raised:
        open_set("scaling", store_home)
    assert len(raised.value.problems) == 1
    assert raised.value.problems[0].endswith(
        "quizzes/scaling.yaml:2: kind: drills says this is a drill file, which belongs in "
        "drills/<set>.yaml or drills/<set>/, but it is read here as a bank; move the file or "
        "correct its kind"
    )


def test_a_bank_among_a_users_timed_drills_is_one_clear_problem(store_home: Path) -> None:
    (store_home / "drills").mkdir()
    (store_home / "drills" / "15-timed.yaml").write_text(
        BANK_FILE.replace("set: demo", "set: 15"), encoding="utf-8"
    )
    found = timed_drill_file("15", store_home)
    assert found is not None
    with pytest.raises(BankError) as raised:
        load_timed_drill(*found, open_set("15", store_home))
    assert len(raised.value.problems) == 1
    assert "15-timed.yaml:2: kind: bank says this is a bank" in raised.value.problems[0]
    assert "read here as a timed drill file" in raised.value.problems[0]
