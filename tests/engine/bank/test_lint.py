"""`attnquiz lint`: every malformed bank gives exit 2 and a `PATH:LINE: message` per problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.cli import main

GOOD_ITEM = """\
  - id: one
    kind: recall
    prompt: Say the equation.
    back: softmax(Q Kᵀ / √d_k) V
"""
HEADER = "format_version: 1\nset: demo\ntitle: Demo\nitems:\n"


def lint(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, Path]:
    path = tmp_path / "quizzes" / "demo.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    code = main(["lint", str(path)])
    return code, capsys.readouterr().err, path


CASES = {
    "yaml_syntax": (HEADER + GOOD_ITEM + "  - id: [unclosed\n", 10, "flow sequence at line 9"),
    "tab": (HEADER + GOOD_ITEM.replace("    back:", "\tback:"), 8, "tab character"),
    "duplicate_key": (HEADER + GOOD_ITEM + "    prompt: again\n", 9, "duplicate key 'prompt'"),
    "unknown_field": (
        HEADER + GOOD_ITEM + "    hnit: typo\n",
        9,
        "unknown field 'hnit' (did you mean 'hint'?)",
    ),
    "missing_answer": (
        HEADER + "  - id: var-dot\n    kind: expression\n    prompt: Var(q·k)?\n",
        5,
        "item 'var-dot' has no answer",
    ),
    "duplicate_id": (HEADER + GOOD_ITEM + GOOD_ITEM, 9, "duplicate id 'one' (first at line 5)"),
    "yaml_tag": (
        HEADER + GOOD_ITEM + "    hint: !!python/object/apply:os.system ['echo pwned']\n",
        9,
        "YAML tag",
    ),
    "custom_tag": (HEADER + GOOD_ITEM + "    hint: !secret x\n", 9, "YAML tag '!secret'"),
    "alias": (
        HEADER
        + "  - &card\n    id: one\n    kind: recall\n    prompt: p\n    back: b\n  - *card\n",
        10,
        "YAML alias *card",
    ),
    "unknown_kind": (
        HEADER + GOOD_ITEM.replace("recall", "essay"),
        6,
        "kind 'essay' is not one of",
    ),
    "wrong_version": (HEADER.replace("1", "7", 1) + GOOD_ITEM, 1, "format_version 7"),
    "set_name": (HEADER.replace("demo", "16") + GOOD_ITEM, 2, "does not match"),
    "choice_out_of_range": (
        HEADER + "  - id: c\n    kind: choice\n    prompt: p\n    options: [a, b]\n    answer: 3\n",
        5,
        "answer 3 is not one of the 2 options",
    ),
    "number_without_tolerance": (
        HEADER + "  - id: n\n    kind: number\n    prompt: p\n    answer: 8\n",
        5,
        "needs abs_tol or rel_tol",
    ),
    "empty": ("", 1, "empty"),
    "not_a_mapping": ("- just\n- a list\n", 1, "a bank is a mapping"),
    "bad_id": (HEADER + GOOD_ITEM.replace("id: one", "id: One Two"), 5, "id"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_bank_gives_exit_2_and_path_line_message(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, line, message = CASES[case]
    code, err, path = lint(tmp_path, text, capsys)
    assert code == 2
    assert f"{path}:{line}: " in err, err
    assert message in err, err
    assert "Traceback" not in err


def test_every_problem_is_reported_not_only_the_first(tmp_path: Path, capsys) -> None:
    text = (
        HEADER
        + GOOD_ITEM
        + "    hnit: x\n"
        + GOOD_ITEM
        + "  - id: two\n    kind: recall\n    prompt: p\n"
    )
    code, err, path = lint(tmp_path, text, capsys)
    assert code == 2
    assert f"{path}:9: " in err  # unknown field
    assert f"{path}:10: duplicate id" in err
    assert f"{path}:14: item 'two' has no 'back'" in err


def test_a_clean_bank_passes(tmp_path: Path, capsys) -> None:
    code, err, _ = lint(tmp_path, HEADER + GOOD_ITEM, capsys)
    assert (code, err) == (0, "")


def test_a_missing_path_is_a_problem_too(tmp_path: Path, capsys) -> None:
    assert main(["lint", str(tmp_path / "nope.yaml")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_a_path_that_is_no_file_or_folder_is_named_as_such(tmp_path: Path, capsys) -> None:
    # A named pipe would block a reader; lint says what it is instead of "no such file".
    import os

    pipe = tmp_path / "15.yaml"
    os.mkfifo(pipe)
    assert main(["lint", str(pipe)]) == 2
    err = capsys.readouterr().err
    assert "not a regular file or folder" in err and "no such file" not in err


def test_an_alias_bomb_is_refused_without_expanding_it(tmp_path: Path, capsys) -> None:
    bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for n in range(1, 30):
        bomb.append(
            f"a{n}: &a{n} [*a{n - 1 if n > 1 else ''}" + f", *a{n - 1 if n > 1 else ''}" * 8 + "]"
        )
    code, err, _ = lint(tmp_path, "\n".join(bomb).replace("*a0", "*a") + "\n", capsys)
    assert code == 2
    assert "YAML alias" in err


@pytest.mark.slow  # every card of every shipped bank checked deeply (SymPy, the sandbox)
def test_the_shipped_banks_lint_clean_and_without_warnings(capsys) -> None:
    quizzes = Path(__file__).resolve().parents[3] / "quizzes"
    code = main(["lint", str(quizzes)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "warning" not in err  # no hint gives its answer away (see test_giveaways.py)


def test_the_test_fixture_bank_lints_clean(capsys) -> None:
    fixtures = Path(__file__).resolve().parents[2] / "fixtures" / "quizzes"
    assert main(["lint", str(fixtures)]) == 0, capsys.readouterr().err


@pytest.mark.parametrize("blob", [b"\xff\xfe\x00bad", b"items: [" * 1000])
def test_binary_or_deeply_nested_garbage_gives_a_message_not_a_traceback(
    blob: bytes, tmp_path: Path, capsys
) -> None:
    path = tmp_path / "quizzes" / "demo.yaml"
    path.parent.mkdir()
    path.write_bytes(blob)
    assert main(["lint", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:" in err and "Traceback" not in err


def test_a_bare_number_is_a_valid_expression_answer(tmp_path: Path, capsys) -> None:
    item = "  - id: mean\n    kind: expression\n    prompt: E[q·k]?\n    answer: 0\n"
    code, err, _ = lint(tmp_path, HEADER + item, capsys)
    assert (code, err) == (0, "")


REPO = Path(__file__).resolve().parents[3]


@pytest.mark.slow
def test_the_shipped_drills_lint_clean_timed_and_rapid_included(capsys) -> None:
    assert main(["lint", str(REPO / "drills")]) == 0, capsys.readouterr().err
    assert "no problems" in capsys.readouterr().out


def drill_copy(tmp_path: Path, name: str, old: str, new: str) -> Path:
    text = (REPO / "drills" / name).read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "drills" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def line_of(path: Path, text: str) -> int:
    content = path.read_text(encoding="utf-8")
    return content[: content.index(text)].count("\n") + 1


def test_a_rapid_template_whose_answer_does_not_follow_is_reported(tmp_path: Path, capsys) -> None:
    path = drill_copy(tmp_path, "15-rapid.yaml", "      answer: [t, a]\n", "      answer: [a, t]\n")
    assert main(["lint", str(path.parent)]) == 2
    err = capsys.readouterr().err
    line = line_of(path, "- id: projection")
    expected = (
        f"{path}:{line}: template 'projection': the answer (a, t) is not the shape of X @ W, "
        "which is (t, a)"
    )
    assert expected in err


def test_a_dimension_letter_the_checker_reads_otherwise_is_reported(tmp_path: Path, capsys) -> None:
    path = drill_copy(tmp_path, "15-rapid.yaml", "names: [a, b,", "names: [e, b,")
    assert main(["lint", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{line_of(path, 'names:')}: the dimension letter 'e' does not read back" in err


def test_a_timed_model_answer_its_own_check_refuses_is_reported(tmp_path: Path, capsys) -> None:
    path = drill_copy(
        tmp_path,
        "15-timed.yaml",
        "answer: Var(q·k/√d_k) = Var(q·k)/d_k = 1",
        "answer: Var(q·k/√d_k) = 2",
    )
    assert main(["lint", str(path)]) == 2
    err = capsys.readouterr().err
    line = line_of(path, "- prompt: And after scaling")
    assert f"{path}:{line}: part 'variance': the model answer does not pass its own check" in err


def test_a_timed_drill_naming_an_unknown_item_is_reported(tmp_path: Path, capsys) -> None:
    path = drill_copy(tmp_path, "15-timed.yaml", "item: shape-output", "item: shape-outputs")
    assert main(["lint", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{line_of(path, 'item: shape-outputs')}: no item 'shape-outputs' in set" in err


@pytest.mark.parametrize(
    ("name", "old", "new", "expected"),
    [
        (
            "15-rapid.yaml",
            "  limit_seconds: 90",
            "  limit_secnds: 90",
            "rapid drill file: unknown field 'rapid.limit_secnds' (did you mean 'limit_seconds'?)",
        ),
        (
            "15-timed.yaml",
            "  limit_seconds:",
            "  limit_secs:",
            "timed drill file: unknown field 'timed.limit_secs' (did you mean 'limit_seconds'?)",
        ),
    ],
    ids=["rapid", "timed"],
)
def test_a_misspelt_field_in_a_timed_or_rapid_file_gets_a_suggestion(
    tmp_path: Path, capsys, name: str, old: str, new: str, expected: str
) -> None:
    path = drill_copy(tmp_path, name, old, new)
    assert main(["lint", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{line_of(path, new.strip())}: {expected}" in err
