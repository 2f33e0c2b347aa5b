"""Which function `submit` checks, found by reading the file (never by running it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from attention_ref.discovery import SubmissionError, find_function


def write(tmp_path: Path, source: str) -> Path:
    path = tmp_path / "mine.py"
    path.write_text(source, encoding="utf-8")
    return path


def test_a_known_attention_name_wins_over_helpers(tmp_path: Path) -> None:
    path = write(
        tmp_path, "def softmax(x):\n    pass\n\ndef attention(Q, K, V, mask=None):\n    pass\n"
    )
    found = find_function(path)
    assert (found.name, found.target, found.takes_mask) == ("attention", "attention", True)


def test_a_softmax_alone_is_a_softmax_target(tmp_path: Path) -> None:
    found = find_function(write(tmp_path, "def stable_softmax(s, axis=-1):\n    pass\n"))
    assert (found.name, found.target) == ("stable_softmax", "softmax")


@pytest.mark.parametrize(
    ("source", "target"),
    [("def mine(q, k, v):\n    pass\n", "attention"), ("def mine(s):\n    pass\n", "softmax")],
)
def test_the_one_public_function_is_judged_by_its_parameters(tmp_path, source, target) -> None:
    assert find_function(write(tmp_path, source + "def _helper():\n    pass\n")).target == target


def test_func_names_the_function(tmp_path: Path) -> None:
    path = write(tmp_path, "def a(Q, K, V):\n    pass\n\ndef b(x):\n    pass\n")
    assert find_function(path, "b").target == "softmax"
    with pytest.raises(SubmissionError, match="no function 'c'") as info:
        find_function(path, "c")
    assert info.value.verdict == "not_found"


def test_several_candidates_ask_for_func(tmp_path: Path) -> None:
    path = write(tmp_path, "def a(Q, K, V):\n    pass\n\ndef b(x):\n    pass\n")
    with pytest.raises(SubmissionError, match="--func"):
        find_function(path)


def test_a_syntax_error_is_an_error_with_its_line(tmp_path: Path) -> None:
    with pytest.raises(SubmissionError, match=r"SyntaxError: .* \(line 2\)") as info:
        find_function(write(tmp_path, "def attention(Q, K, V):\n    return Q @@ K\n"))
    assert info.value.verdict == "error"


def test_nothing_runs_while_looking(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    source = f"open({str(marker)!r}, 'w').close()\n\ndef attention(Q, K, V):\n    pass\n"
    assert find_function(write(tmp_path, source)).name == "attention"
    assert not marker.exists()
