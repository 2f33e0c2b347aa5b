"""`submit` verdicts: good code passes, each classic mistake is named, hostile code cannot pass."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from attention_ref.grading import grade_submission
from attention_ref.sandbox import Limits
from engine.cli import main

SUBMISSIONS = Path(__file__).parent / "submissions"
FAST = Limits(seconds_per_call=3.0, memory_bytes=1 * 2**30)
SPEC_KEYS = {"passed", "verdict", "target", "function", "diagnosis", "cases", "timing"}


@pytest.mark.parametrize("path", sorted((SUBMISSIONS / "good").glob("*.py")), ids=lambda p: p.stem)
def test_correct_submissions_in_every_style_pass(path: Path) -> None:
    grade = grade_submission(path, limits=FAST)
    assert grade.verdict == "pass", [c.message for c in grade.cases if not c.passed]
    assert grade.passed and grade.diagnosis == []
    assert all(case.passed for case in grade.cases)


def test_a_masked_submission_is_tested_with_a_causal_mask() -> None:
    grade = grade_submission(SUBMISSIONS / "good" / "boolean_mask.py", limits=FAST)
    assert "causal-mask" in [case.name for case in grade.cases]


@pytest.mark.parametrize(
    ("name", "diagnosis"),
    [
        ("missing_transpose", "missing_transpose"),
        ("scale_by_d", "scale_by_d"),
        ("no_scale", "no_scale"),
        ("softmax_wrong_axis", "softmax_wrong_axis"),
        ("no_softmax", "no_softmax"),
        ("unstable_softmax", "unstable_softmax"),
        ("naive_softmax_only", "unstable_softmax"),
        ("wrong_shape", "wrong_shape"),
    ],
)
def test_each_classic_mistake_is_named(name: str, diagnosis: str) -> None:
    grade = grade_submission(SUBMISSIONS / "pitfalls" / f"{name}.py", limits=FAST)
    assert grade.verdict == "wrong" and not grade.passed
    assert diagnosis in grade.diagnosis


def test_an_exception_is_an_error_with_its_line() -> None:
    grade = grade_submission(SUBMISSIONS / "pitfalls" / "raises.py", limits=FAST)
    assert grade.verdict == "error"
    assert "ValueError: not written yet (line 2)" in grade.cases[0].message


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "verdicts"),
    [
        ("infinite_loop", {"timeout"}),
        ("ignores_sigterm", {"timeout"}),
        ("memory_hog", {"memory"}),
        ("segfault", {"crash"}),
        ("exit_at_import", {"error"}),
        ("os_exit_in_call", {"error"}),
        ("fake_verdict", {"wrong", "error"}),
        ("patches_numpy", {"wrong", "error"}),
        ("fork_storm", {"wrong", "error", "timeout"}),
        ("output_flood", {"wrong", "error", "pass"}),
    ],
)
def test_hostile_submissions_get_a_verdict_and_never_a_false_pass(name: str, verdicts) -> None:
    # The memory hog only ends at the memory bound; on a loaded machine touching it can take
    # longer than FAST's 3 s, which would make it a time-out: give it time, it never needs it,
    # and a smaller bound to reach. Code that spins is stopped by the time limit whatever it
    # is: a shorter one (the import and every other step stay far below it) spins less.
    limits = {
        "memory_hog": replace(FAST, seconds_per_call=60.0, memory_bytes=512 * 2**20),
        "infinite_loop": replace(FAST, seconds_per_call=1.0),
        "ignores_sigterm": replace(FAST, seconds_per_call=1.0),
    }.get(name, FAST)
    grade = grade_submission(SUBMISSIONS / "hostile" / f"{name}.py", limits=limits)
    assert grade.verdict in verdicts, (grade.verdict, grade.message, grade.cases[:1])
    if name != "output_flood":
        assert not grade.passed


def test_no_function_is_not_found(tmp_path: Path) -> None:
    path = tmp_path / "empty.py"
    path.write_text("x = 1\n")
    grade = grade_submission(path, limits=FAST)
    assert (grade.verdict, grade.passed) == ("not_found", False)


def test_submit_json_has_the_spec_fields_and_exit_codes(capsys) -> None:
    good = SUBMISSIONS / "good" / "five_lines.py"
    assert main(["submit", str(good), "--no-time", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= SPEC_KEYS
    assert (out["verdict"], out["target"], out["function"], out["timing"]) == (
        "pass",
        "attention",
        "attention",
        None,
    )
    assert all({"name", "passed", "message"} <= set(case) for case in out["cases"])
    bad = SUBMISSIONS / "pitfalls" / "no_scale.py"
    assert main(["submit", str(bad), "--no-time", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["diagnosis"] == ["no_scale"]


def test_submit_of_a_missing_file_is_a_usage_error(tmp_path: Path, capsys) -> None:
    assert main(["submit", str(tmp_path / "nope.py")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_the_readable_report_names_the_mistake_in_words(capsys) -> None:
    bad = SUBMISSIONS / "pitfalls" / "scale_by_d.py"
    assert main(["submit", str(bad), "--no-time"]) == 1
    out = capsys.readouterr().out
    assert "✗" in out and "divided by d_k instead of √d_k" in out


def test_inputs_are_drawn_afresh_for_each_run_and_a_seed_reproduces_them() -> None:
    good = SUBMISSIONS / "good" / "five_lines.py"
    first, second = grade_submission(good, limits=FAST), grade_submission(good, limits=FAST)
    assert first.seed != second.seed
    again = grade_submission(good, limits=FAST, seed=first.seed)
    assert [c.about for c in again.cases] == [c.about for c in first.cases]


def test_the_json_says_which_function_was_checked_why_and_how_it_was_called(capsys) -> None:
    path = SUBMISSIONS / "corpus" / "tf_tutorial_mask.py"
    assert main(["submit", str(path), "--no-time", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["function"] == "scaled_dot_product_attention" and out["why"]
    assert "0/1 block" in out["called_as"]
    assert isinstance(out["seed"], int)


def test_a_rounded_output_passes_and_is_said_to_be_rounded(capsys) -> None:
    path = SUBMISSIONS / "corpus" / "rounded_four_decimals.py"
    assert main(["submit", str(path), "--no-time"]) == 0
    assert "rounded to 4 decimals" in capsys.readouterr().out


def test_learner_text_is_printed_literally_never_as_markup(tmp_path: Path, capsys) -> None:
    path = tmp_path / "mine.py"
    path.write_text(
        "def attention(Q, K, V):\n"
        "    print('[bold]shouted[/bold]')\n"
        "    raise ValueError('[green]passed every case[/green]')\n"
    )
    assert main(["submit", str(path), "--no-time"]) == 1
    out = capsys.readouterr().out
    assert "[green]passed every case[/green]" in out and "[bold]shouted[/bold]" in out


@pytest.mark.parametrize("decorator", ["staticmethod", "classmethod"])
def test_a_static_method_is_called_without_making_the_layer(tmp_path: Path, decorator) -> None:
    # The constructor needs arguments and raises if called: the method must run on the class.
    first = "cls, " if decorator == "classmethod" else ""
    path = tmp_path / "layer.py"
    path.write_text(
        "import numpy as np\n\n"
        "class Layer:\n"
        "    def __init__(self, d_model):\n"
        "        raise RuntimeError('built without its weights')\n\n"
        f"    @{decorator}\n"
        f"    def sdpa({first}q, k, v):\n"
        "        s = q @ k.T / np.sqrt(q.shape[-1])\n"
        "        e = np.exp(s - s.max(axis=-1, keepdims=True))\n"
        "        return e / e.sum(axis=-1, keepdims=True) @ v\n",
        encoding="utf-8",
    )
    grade = grade_submission(path, limits=FAST)
    assert (grade.verdict, grade.function) == ("pass", "Layer.sdpa"), grade.cases[:1]


COMPLEX_ATTENTION = (
    "import numpy as np\n\n"
    "def attention(Q, K, V):\n"
    "    s = Q @ K.T / np.sqrt(Q.shape[-1])\n"
    "    e = np.exp(s - s.max(axis=-1, keepdims=True))\n"
    "    return (e / e.sum(axis=-1, keepdims=True) @ V).astype(complex){}\n"
)


@pytest.mark.parametrize(("imaginary", "verdict"), [("", "pass"), (" + 0.5j", "wrong")])
def test_complex_output_is_judged_by_its_imaginary_part_too(
    imaginary: str, verdict: str, tmp_path: Path
) -> None:
    # The imaginary part was dropped with a ComplexWarning on the learner's screen, so code
    # returning right + 0.5j was "wrong values (max error 0)": the screen said no error at all.
    import warnings

    path = tmp_path / "complex.py"
    path.write_text(COMPLEX_ATTENTION.format(imaginary), encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing the grader does may warn on the screen
        grade = grade_submission(path, limits=FAST)
    assert grade.verdict == verdict, grade.cases[:1]
    if verdict == "wrong":
        message = grade.cases[0].message
        assert "complex values" in message and "max error 0" not in message, message
