"""Grade a coding exercise: run the learner's function on the exercise's battery in the sandbox.

The learner's file runs unchanged inside the sandbox, with one function appended at its end: it
calls the exercise's function with plain Python numbers where the exercise passes numbers
(n_heads, block, axis) and returns the outputs as a tuple. Every comparison happens here, in the
parent, and so does measuring the call's peak memory when the battery bounds it (the sandbox
reads it from the kernel: a figure from inside the learner's process could be anything).
"""

from __future__ import annotations

import ast
import secrets
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from attention_ref.discovery import top_level_statements
from attention_ref.exercises.batteries import ExerciseCase, cases_for
from attention_ref.exercises.mistakes import MISTAKES
from attention_ref.grading import COMPLEX_MESSAGE, CaseReport, Grade, conclude, real_values
from attention_ref.sandbox import CallResult, Limits, Sandbox
from attention_ref.sandbox.results import NotAnArray, as_returned

ENTRY = "__attnquiz_exercise__"
# Diagnoses about the form of the answer, not a computed mistake: always kept.
_STRUCTURAL = frozenset({"wrong_shape", "holds_full_matrix"})

_WRAPPER = """

# ── appended by attnquiz: calls {name} and reports its outputs (not part of your file) ──
def {entry}(*args, **kwargs):
    import numpy as _np

    def _plain(value):
        return value.item() if isinstance(value, _np.ndarray) and value.ndim == 0 else value

    target = globals().get({name!r})
    if not callable(target):
        raise NameError("there is no function named {name} once the file has run")
    args = [_plain(a) for a in args]
    kwargs = {{k: _plain(v) for k, v in kwargs.items()}}
    return target(*args, **kwargs)
"""


def grade_exercise(
    path: Path,
    exercise: str,
    function: str,
    *,
    battery: str | None = None,
    mistakes: Iterable[str] | None = None,
    limits: Limits | None = None,
    seed: int | None = None,
    source: str | None = None,
) -> Grade:
    """The verdict on `path` (or on `source`, shown as `path`) for exercise `exercise`.

    `battery` defaults to the exercise id; `mistakes` limits the diagnosis to the names the
    exercise lists (default: every mistake known for the battery); `seed` replays a run.
    """
    battery = battery or exercise
    text = path.read_text(encoding="utf-8-sig") if source is None else source
    grade = Grade(False, "pass", exercise, function, [], [])
    problem = _unreadable(text, function)
    if problem is not None:
        grade.verdict, grade.message = problem
        return conclude(grade)
    seed = secrets.randbits(32) if seed is None else seed
    cases = cases_for(battery, seed)
    known = MISTAKES.get(battery, {})
    names = list(known) if mistakes is None else [m for m in mistakes if m in known]
    with tempfile.TemporaryDirectory(prefix="attnquiz-exercise-") as folder:
        combined = Path(folder) / (path.stem + ".py")
        combined.write_text(wrapped_source(text, function), encoding="utf-8")
        with Sandbox(combined, ENTRY, limits or Limits(), protect=[path.resolve().parent]) as box:
            report = box.report()
            grade.isolation = report.isolation
            if report.import_status != "ok":
                grade.verdict = report.import_status
                grade.message = f"the file could not be loaded: {report.import_error}"
            else:
                for case in cases:
                    measure = case.peak_bytes is not None
                    result = box.call(*case.args, measure_peak=measure, **case.kwargs)
                    grade.cases.append(_judge(case, result, battery, names))
                    if result.status in {"crash", "timeout", "memory"}:
                        break  # the sandboxed process is gone
            final = box.report()
            grade.output = (final.stdout_tail + final.stderr_tail)[-2000:]
    grade.seed = seed
    _keep_best_explanations(grade.cases)
    if grade.cases and all(
        (case.message or "").startswith("raised NotImplementedError") for case in grade.cases
    ):
        grade.message = (
            f"{function} is still the starter (it raises NotImplementedError): "
            "write it, then submit again"
        )
    return conclude(grade)


def _keep_best_explanations(cases: list[CaseReport]) -> None:
    """Several mistakes can match one failed case (inf and nan look alike); the mistake that
    explains the most failed cases is the one the learner made."""
    counts: dict[str, int] = {}
    for case in cases:
        for name in case.diagnosis:
            if name not in _STRUCTURAL:
                counts[name] = counts.get(name, 0) + 1
    if not counts:
        return
    best = max(counts.values())
    for case in cases:
        case.diagnosis = [
            name for name in case.diagnosis if name in _STRUCTURAL or counts[name] == best
        ]


def wrapped_source(text: str, function: str) -> str:
    """The learner's file with the caller appended (line numbers stay the learner's)."""
    return text.rstrip("\n") + "\n" + _WRAPPER.format(entry=ENTRY, name=function)


def _unreadable(text: str, function: str) -> tuple[str, str] | None:
    """A verdict before running anything: the file does not parse or has no such function."""
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        where = f" (line {error.lineno})" if error.lineno else ""
        return "error", f"SyntaxError: {error.msg}{where}"
    except (ValueError, RecursionError, MemoryError) as error:
        return "error", f"the file cannot be parsed: {type(error).__name__}"
    statements = top_level_statements(tree.body)
    defined = {
        node.name
        for node in statements
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    } | {
        target.id
        for node in statements
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    if function not in defined:
        return "not_found", f"the file defines no function named {function}"
    return None


def _judge(case: ExerciseCase, result: CallResult, battery: str, mistakes: list[str]) -> CaseReport:
    report = CaseReport(case.name, False, "", about=case.about, status=result.status)
    if result.status != "ok":
        report.message = {
            "error": f"raised {result.error}",
            "crash": f"crashed: {result.error}",
            "timeout": f"ran past its time limit {result.error or ''}".rstrip(),
            "memory": f"ran out of its memory limit {result.error or ''}".rstrip(),
        }.get(result.status, str(result.error or result.status))
        return report
    returned = as_returned(result.value, case.expected[0].shape)
    value = returned if isinstance(returned, tuple) else (returned,)
    wanted = len(case.expected)
    odd = next((i for i, v in enumerate(value[:wanted]) if isinstance(v, NotAnArray)), None)
    if odd is not None:
        whose = f"item {odd + 1} of what it returned is " if isinstance(returned, tuple) else ""
        report.message = (
            f"{whose or 'returned '}{value[odd]}, not an array: expected an array of numbers "
            f"of shape {case.expected[odd].shape}"
        )
        return report
    real = [real_values(np.asarray(v)) for v in value]
    if any(output is None for output in real[:wanted]):
        report.message = COMPLEX_MESSAGE
        return report
    outputs = [output for output in real if output is not None]
    if len(outputs) < wanted:
        report.message = f"returned {len(outputs)} array(s), expected {wanted}"
        report.diagnosis = ["wrong_shape"]
        return report
    outputs = outputs[:wanted]  # a tuple whose first item is the output: the rest is extra
    for given, expected in zip(outputs, case.expected, strict=True):
        if given.shape != expected.shape:
            report.message = f"returned shape {given.shape}, expected {expected.shape}"
            report.diagnosis = ["wrong_shape"]
            return report
    error = _max_error(outputs, case.expected)
    report.max_error = error
    if not _close(outputs, case.expected, case):
        report.diagnosis = _matching_mistakes(case, outputs, battery, mistakes)
        finite = all(np.all(np.isfinite(o)) for o in outputs)
        report.message = (
            f"wrong values ({'max error ' + format(error, '.3g') if finite else 'nan/inf values'})"
        )
        return report
    peak = result.peak_bytes
    report.passed = True
    report.peak_bytes, report.peak_bound_bytes = peak, case.peak_bytes
    report.message = f"matches the reference (max error {error:.2g})"
    if case.peak_bytes is not None and peak is None:
        report.message += "; its memory could not be measured on this system"
    elif case.peak_bytes is not None and peak is not None and peak > case.peak_bytes:
        report.passed = False
        report.message = (
            f"right values, but the call held {peak / 2**20:.1f} MiB at once (at most "
            f"{case.peak_bytes / 2**20:.0f} MiB without a T_q × T_k array)"
        )
        report.diagnosis = ["holds_full_matrix"]
    return report


def _max_error(outputs: list[Any], expected: tuple[Any, ...]) -> float:
    worst = 0.0
    with np.errstate(invalid="ignore", over="ignore"):
        for given, truth in zip(outputs, expected, strict=True):
            diff = np.abs(given.astype(np.float64) - truth)
            finite = diff[np.isfinite(diff)]
            if finite.size:
                worst = max(worst, float(finite.max()))
    return worst


def _close(
    outputs: list[Any], expected: tuple[Any, ...], case: ExerciseCase, nan: bool = False
) -> bool:
    with np.errstate(invalid="ignore"):
        return all(
            np.shape(given) == np.shape(truth)
            and np.issubdtype(np.asarray(given).dtype, np.number)
            and bool(np.allclose(given, truth, rtol=case.rtol, atol=case.atol, equal_nan=nan))
            for given, truth in zip(outputs, expected, strict=True)
        )


def _matching_mistakes(
    case: ExerciseCase, outputs: list[Any], battery: str, names: list[str]
) -> list[str]:
    found = []
    for name in names:
        for way in MISTAKES[battery][name]:
            try:
                with np.errstate(all="ignore"):
                    value = way(*case.args, **case.kwargs)
            except (ValueError, TypeError, IndexError):
                continue  # e.g. a mistake that only runs for some shapes
            wrong = tuple(value) if isinstance(value, tuple) else (value,)
            if _close(outputs, wrong, case, nan=True) and not _close(
                list(wrong), case.expected, case
            ):
                found.append(name)
                break
    return found
