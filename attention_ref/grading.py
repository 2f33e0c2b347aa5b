"""Grade a submitted attention or softmax: run the battery in the sandbox, compare, diagnose.

All comparing happens here, in the parent; the sandboxed process only ever sends its outputs.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from attention_ref.battery import Case, attention_cases, softmax_cases
from attention_ref.diagnosis import close, matching_pitfalls
from attention_ref.discovery import Found, SubmissionError, find_function
from attention_ref.sandbox import CallResult, Limits, Sandbox

# When several things went wrong, the verdict names the most serious.
SEVERITY = ("crash", "timeout", "memory", "wrong", "error", "pass")


@dataclass
class CaseReport:
    name: str
    passed: bool
    message: str
    about: str = ""
    diagnosis: list[str] = field(default_factory=list)
    status: str = "ok"
    max_error: float | None = None


@dataclass
class Grade:
    passed: bool
    verdict: str
    target: str
    function: str
    diagnosis: list[str]
    cases: list[CaseReport]
    message: str = ""
    timing: dict[str, Any] | None = None
    isolation: dict[str, str] = field(default_factory=dict)
    output: str = ""
    # The seed the cases were drawn from, so a run can be replayed (None: fixed cases).
    seed: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The `submit --json` object of docs/spec.md."""
        return {
            "passed": self.passed,
            "verdict": self.verdict,
            "target": self.target,
            "function": self.function,
            "diagnosis": self.diagnosis,
            "cases": [asdict(c) for c in self.cases],
            "timing": self.timing,
            "message": self.message,
            "isolation": self.isolation,
            "seed": self.seed,
        }


def grade_submission(
    path: Path, function: str | None = None, *, limits: Limits | None = None, seed: int = 15
) -> Grade:
    try:
        found = find_function(path, function)
    except SubmissionError as exc:
        return Grade(False, exc.verdict, "attention", function or "", [], [], message=str(exc))
    cases = (
        attention_cases(seed, with_mask=found.takes_mask)
        if found.target == "attention"
        else softmax_cases(seed)
    )
    with Sandbox(path, found.name, limits or Limits()) as box:
        report = box.report()
        grade = Grade(False, "pass", found.target, found.name, [], [], isolation=report.isolation)
        if report.import_status != "ok":
            grade.verdict = report.import_status
            grade.message = (
                f"the file could not be loaded: {report.import_error or report.import_status}"
            )
        elif not report.function_found:
            grade.verdict = "not_found"
            grade.message = f"{found.name} is not a function once the file has run"
        else:
            for case in cases:
                result = _run_case(box, case, found)
                grade.cases.append(result)
                if result.status in {"crash", "timeout", "memory"}:
                    break  # the sandboxed process is gone
        final = box.report()
        grade.output = (final.stdout_tail + final.stderr_tail)[-2000:]
    return conclude(grade)


def _run_case(box: Sandbox, case: Case, found: Found) -> CaseReport:
    attempts: list[dict[str, Any]] = [{"mask": m} for m in case.masks] or [{}]
    last: CaseReport | None = None
    for kwargs in attempts:
        result = box.call(*case.args, **kwargs)
        last = _judge(case, result, found, kwargs.get("mask"))
        if last.passed or last.status != "ok":
            return last
    assert last is not None
    return last


def _judge(case: Case, result: CallResult, found: Found, mask: Any) -> CaseReport:
    base = CaseReport(case.name, False, "", about=case.about, status=result.status)
    if result.status != "ok":
        base.message = {
            "error": f"raised {result.error}",
            "crash": f"crashed: {result.error}",
            "timeout": f"ran past its time limit: {result.error or ''}".rstrip(": "),
            "memory": f"ran out of its memory limit: {result.error or ''}".rstrip(": "),
        }.get(result.status, result.error or result.status)
        return base
    value = result.value
    weights = None
    if isinstance(value, tuple):
        if not value:
            base.message = "returned an empty tuple"
            return base
        value, weights = value[0], (value[1] if len(value) > 1 else None)
    given = np.asarray(value)
    if not np.issubdtype(given.dtype, np.number):
        base.message = f"returned {given.dtype} values, not numbers"
        return base
    expected = case.expected
    if given.shape != expected.shape:
        base.message = f"returned shape {given.shape}, expected {expected.shape}"
        base.diagnosis = ["wrong_shape"]
        return base
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(given.astype(np.float64) - expected)
    finite = diff[np.isfinite(diff)]
    error = float(finite.max()) if finite.size else 0.0
    base.max_error = error if finite.size == diff.size else None
    if not close(given, expected, case):
        base.diagnosis = matching_pitfalls(case, given, found.target, mask)
        bad = "nan/inf values" if not np.all(np.isfinite(given)) else f"max error {error:.3g}"
        base.message = f"wrong values ({bad})"
        return base
    if weights is not None and found.target == "attention":
        w = np.asarray(weights)
        if case.expected_weights is not None and (
            w.shape != case.expected_weights.shape or not close(w, case.expected_weights, case)
        ):
            base.message = "the output is right but the returned weights are not softmax(QKᵀ/√d_k)"
            return base
    base.passed = True
    base.message = f"matches the reference (max error {error:.2g})"
    return base


def conclude(grade: Grade) -> Grade:
    """The verdict from the cases: the most serious failure, and every mistake named once."""
    if grade.verdict == "pass":
        statuses = set()
        for case in grade.cases:
            if case.passed:
                continue
            statuses.add(case.status if case.status != "ok" else "wrong")
        grade.verdict = min(statuses, key=SEVERITY.index) if statuses else "pass"
    diagnosis: list[str] = []
    for case in grade.cases:
        for name in case.diagnosis:
            if name not in diagnosis:
                diagnosis.append(name)
    grade.diagnosis = diagnosis
    grade.passed = grade.verdict == "pass" and bool(grade.cases)
    return grade
