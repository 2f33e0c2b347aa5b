"""Grade a submitted attention or softmax: run the battery in the sandbox, compare, diagnose.

All comparing happens here, in the parent; the sandboxed process only ever sends its outputs.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from attention_ref.battery import Case, attention_cases, fresh_seed, in_form, softmax_cases
from attention_ref.calling import CallPlan, style_of
from attention_ref.diagnosis import close, mask_mistakes, matching_pitfalls, ruled_out_pitfalls
from attention_ref.discovery import Found, SubmissionError, find_function
from attention_ref.reference import causal_mask
from attention_ref.sandbox import CallResult, Limits, Sandbox
from attention_ref.sandbox.results import NotAnArray, as_returned

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
    notes: list[str] = field(default_factory=list)
    # The call's measured peak memory and the bound it must stay under, when a case bounds it.
    peak_bytes: int | None = None
    peak_bound_bytes: int | None = None
    # Named mistakes this case's output rules out (not in the JSON: `conclude` uses them).
    ruled_out: list[str] = field(default_factory=list)

    def over_memory_only(self) -> bool:
        """Whether this case returned the right values and failed only its memory bound."""
        return (
            not self.passed
            and self.status == "ok"
            and self.peak_bytes is not None
            and self.peak_bound_bytes is not None
            and self.peak_bytes > self.peak_bound_bytes
        )


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
    why: str = ""
    called_as: str = ""
    notes: list[str] = field(default_factory=list)
    # The seed the cases were drawn from, so a run can be replayed (None: fixed cases).
    seed: int | None = None
    plan: CallPlan | None = None

    def to_json(self) -> dict[str, Any]:
        """The `submit --json` object of docs/spec.md."""
        return {
            "passed": self.passed,
            "verdict": self.verdict,
            "target": self.target,
            "function": self.function,
            "diagnosis": self.diagnosis,
            "cases": [{k: v for k, v in asdict(c).items() if k != "ruled_out"} for c in self.cases],
            "timing": self.timing,
            "message": self.message,
            "why": self.why,
            "called_as": self.called_as,
            "notes": self.notes,
            "seed": self.seed,
            "isolation": self.isolation,
        }


def grade_submission(
    path: Path,
    function: str | None = None,
    *,
    limits: Limits | None = None,
    seed: int | None = None,
) -> Grade:
    """Grade the file on inputs drawn afresh (`seed` reproduces a run)."""
    seed = fresh_seed() if seed is None else seed
    try:
        found = find_function(path, function)
    except SubmissionError as exc:
        grade = Grade(False, exc.verdict, "attention", function or "", [], [], message=str(exc))
        grade.seed = seed
        return grade
    plan = CallPlan(found)
    limits = for_code(found, limits or Limits())
    with Sandbox(path, found.name, limits, numba=found.hints.uses_numba) as box:
        report = box.report()
        grade = Grade(False, "pass", found.target, found.name, [], [], isolation=report.isolation)
        grade.why, grade.seed, grade.plan = found.why, seed, plan
        if report.import_status != "ok":
            grade.verdict = report.import_status
            grade.message = (
                f"the file could not be loaded: {report.import_error or report.import_status}"
            )
        elif not report.function_found:
            grade.verdict = "not_found"
            grade.message = f"{found.name} is not a function once the file has run"
        else:
            _run_battery(box, plan, grade, seed)
        grade.called_as = plan.describe()
        if found.hints.uses_numba:
            grade.notes.append(
                f"Numba code: each call may take up to {limits.seconds_per_call:g} s, since the "
                "first call of each kind of input compiles"
            )
        final = box.report()
        grade.output = (final.stdout_tail + final.stderr_tail)[-2000:]
    return conclude(grade)


# Numba compiles on the first call of each kind of input: that is not the code's running time.
NUMBA_SECONDS_PER_CALL = 60.0


def for_code(found: Found, limits: Limits) -> Limits:
    """The limits for this code: calls of Numba code may take long enough to compile."""
    if found.hints.uses_numba and limits.seconds_per_call < NUMBA_SECONDS_PER_CALL:
        return replace(limits, seconds_per_call=NUMBA_SECONDS_PER_CALL)
    return limits


def _run_battery(box: Sandbox, plan: CallPlan, grade: Grade, seed: int) -> None:
    found = plan.found
    fatal = _probe(box, plan, seed)
    if fatal is not None:
        grade.cases.append(fatal)
        return
    if found.target == "attention":
        cases = attention_cases(
            seed,
            causal_only=found.causal_by_name,
            with_mask=found.takes_mask or found.parameter("causal") is not None,
        )
        if found.mask_required:
            cases.sort(key=lambda c: not c.causal)  # learn the mask convention first
    else:
        cases = softmax_cases(seed, vectors_only=plan.rank == 1)
    for case in cases:
        result = _run_case(box, in_form(case, plan.rank) if plan.rank > 2 else case, plan)
        grade.cases.append(result)
        if result.status in {"crash", "timeout", "memory"}:
            return  # the sandboxed process is gone
    _float64_only(plan, grade)
    if plan.rank == 2 and all(c.passed for c in grade.cases):
        _try_batched(box, plan, grade, cases)


_DTYPE_WORDS = ("float32", "No matching definition", "TypingError", "dtype")


def _float64_only(plan: CallPlan, grade: Grade) -> None:
    """Code written for float64 (a Numba signature, a typed loop) that refuses float32 inputs
    but is right on everything else: the float32 case is not counted, and timing uses float64."""
    others = [c for c in grade.cases if "float32" not in c.name]
    for case in grade.cases:
        refused = case.status == "error" and any(w in case.message for w in _DTYPE_WORDS)
        if "float32" in case.name and refused and others and all(c.passed for c in others):
            case.passed, case.status = True, "ok"
            case.message = f"not counted: refuses float32 inputs ({case.message})"
            case.notes = ["written for float64: refuses float32 inputs (not counted)"]
            plan.float32 = False


def _probe(box: Sandbox, plan: CallPlan, seed: int) -> CaseReport | None:
    """Find the form the code is written for: the first that runs and returns the right shape."""
    found = plan.found
    rng = np.random.default_rng(seed + 1)
    if found.target == "attention":
        base = attention_cases(seed)[2]  # fewer-queries: T_q, T_k, d_k, d_v all different
        hinted = found.hints.rank
        ranks = [hinted, *[r for r in (2, 3, 4) if r != hinted]] if hinted else [2, 3, 4]
        forms = [(r, False, in_form(base, r)) for r in ranks]
        # Last: (B, T, H, d), heads after the sequence (calling the plain rank 4 form swapped).
        forms.append((4, True, in_form(base, 4)))
    else:
        rows = rng.normal(size=(3, 5))
        forms = [(2, False, _softmax_case(rows)), (1, False, _softmax_case(rows[0]))]
    outcomes: list[tuple[tuple[int, bool], bool, CallResult]] = []
    for as_lists in (False, True):
        for rank, sequence_first, case in forms:
            plan.rank, plan.sequence_first, plan.as_lists = rank, sequence_first, as_lists
            masks = plan.mask_attempts(*_lengths(case), causal=False)
            result = plan.call(box, case.args, mask=masks[0] if masks else None)
            if result.status in {"crash", "timeout", "memory"}:
                plan.rank, plan.sequence_first, plan.as_lists = forms[0][0], False, False
                return _judge(case, result, found, None)
            shape_ok = result.status == "ok" and np.shape(
                _first(result.value, case.expected.shape)
            ) == np.shape(case.expected)
            if shape_ok:
                return None
            outcomes.append(((rank, sequence_first), as_lists, result))
        if any(result.status == "ok" for _, _, result in outcomes):
            break
    runs = [(form, lists) for form, lists, result in outcomes if result.status == "ok"]
    (plan.rank, plan.sequence_first), plan.as_lists = (
        runs[0] if runs else ((forms[0][0], False), False)
    )
    return None


def _softmax_case(scores: np.ndarray) -> Case:
    from attention_ref.reference import stable_softmax

    return Case("probe", "", (scores,), stable_softmax(scores))


def _lengths(case: Case) -> tuple[int, int]:
    if len(case.args) < 2:
        return 0, 0
    return case.args[0].shape[-2], case.args[1].shape[-2]


def _first(value: Any, shape: tuple[int, ...]) -> Any:
    value = as_returned(value, shape)
    return value[0] if isinstance(value, tuple) and value else value


def _try_batched(box: Sandbox, plan: CallPlan, grade: Grade, cases: list[Case]) -> None:
    """Code that passed in 2-D is also tried on a batch; passing adds a case, failing a note."""
    base = next((c for c in cases if c.name in ("fewer-queries", "rows")), None)
    if base is None:
        return
    if plan.found.target == "attention":
        batched = in_form(base, 3)
    else:
        stacked = np.stack([base.args[0], base.args[0][::-1]])
        batched = _softmax_case(stacked)
    batched = Case(
        f"batched-{base.name}",
        f"{base.about}, as a batch {batched.args[0].shape}",
        batched.args,
        batched.expected,
        batched.expected_weights,
        base.rtol,
        base.atol,
        base.causal,
        3,
    )
    saved = plan.rank
    result = _run_case(box, batched, plan)
    plan.rank = saved
    if result.passed:
        grade.cases.append(result)
        grade.notes.append("works at any rank: also checked on batched inputs")
    elif result.status not in {"crash", "timeout", "memory"}:
        what = result.message
        if what.startswith("wrong values"):
            what = f"gives {what}"
        grade.notes.append(
            f"written for 2-D inputs: on a batch {batched.args[0].shape} it {what} (not counted)"
        )


def _run_case(box: Sandbox, case: Case, plan: CallPlan) -> CaseReport:
    t_q, t_k = _lengths(case)
    attempts: list[tuple[str, Any] | None] = [*plan.mask_attempts(t_q, t_k, case.causal)]
    attempts = attempts or [None]
    additive = causal_mask(t_q, t_k) if case.causal else None
    tried: list[tuple[tuple[str, Any] | None, CaseReport, Any]] = []
    for mask in attempts:
        result = plan.call(box, case.args, causal=case.causal, mask=mask)
        report = _judge(case, result, plan.found, additive)
        if report.passed and mask is not None:
            plan.learn(mask[0])
        if report.passed or report.status in {"crash", "timeout", "memory"}:
            return report
        value = _first(result.value, case.expected.shape) if result.status == "ok" else None
        tried.append((mask, report, None if isinstance(value, NotAnArray) else value))
    return _closest(case, tried)


def _closest(case: Case, tried: list[tuple[tuple[str, Any] | None, CaseReport, Any]]) -> CaseReport:
    """When no mask convention passes, the report to show: one whose output names a mistake,
    else the one that came closest to the reference (a finite output before nan/inf, then the
    smallest error), with the convention it was given and how the code mishandled the mask."""
    if all(report.status == "ok" and value is None for _, report, value in tried):
        return tried[0][1]  # nothing came back as an array: no convention to compare
    if tried[0][0] is None or not case.causal:
        return next((r for _, r, _ in tried if r.diagnosis), None) or next(
            (r for _, r, _ in tried if r.status == "ok"), tried[0][1]
        )
    for mask, report, value in tried:
        if mask is None or report.status != "ok" or report.diagnosis:
            continue
        style = style_of(mask[0])  # None: a padding mask, which masks nothing here
        if style is not None:
            given = np.asarray(value)
            if np.issubdtype(given.dtype, np.number) and given.shape == case.expected.shape:
                for note in mask_mistakes(case, given, mask[1], style):
                    report.notes.append(note)
                    report.message += f"; this {note}"

    def distance(entry: tuple[tuple[str, Any] | None, CaseReport, Any]) -> tuple[int, float]:
        report = entry[1]
        if report.status != "ok":
            return 3, 0.0
        evidence = 0 if report.diagnosis or report.notes else 1
        error = report.max_error
        return evidence, float("inf") if error is None else error

    mask, chosen, _ = min(tried, key=distance)
    if mask is None:
        return chosen
    values = [np.asarray(v) for _, r, v in tried if r.status == "ok" and v is not None]
    if len(values) == len(tried) and all(
        v.shape == values[0].shape and np.array_equal(v, values[0], equal_nan=True) for v in values
    ):
        clause = "whichever convention the mask is given in (the output is the same)"
    elif chosen.status != "ok":
        clause = f"mask given as {mask[0]}; no convention ran without an error"
    elif chosen.diagnosis or chosen.notes:
        clause = (
            f"with the mask given as {mask[0]}, the convention that explains the output "
            "(none gives causal attention)"
        )
    else:
        clause = (
            f"with the mask given as {mask[0]}, the convention whose output came closest "
            "(none gives causal attention)"
        )
    if chosen.status == "ok":
        chosen.message = _with_clause(chosen.message, clause)
    else:  # an error's own text may hold "; "
        chosen.message += f" ({clause})"
    return chosen


def _with_clause(message: str, clause: str) -> str:
    """The message with `clause` after its first part ("wrong values (max error 0.4)"), before
    the notes that follow it."""
    head, sep, rest = message.partition("; ")
    return f"{head} {clause}{sep}{rest}"


COMPLEX_MESSAGE = "returned complex values with a nonzero imaginary part, not real ones"


def real_values(given: np.ndarray) -> np.ndarray | None:
    """A returned array as real numbers: a complex one is its real part when every imaginary
    part is 0, else None (casting would drop the imaginary part, and warn on the screen)."""
    if not np.iscomplexobj(given):
        return given
    return None if np.any(given.imag != 0) else given.real


def _judge(case: Case, result: CallResult, found: Found, mask: Any) -> CaseReport:
    base = CaseReport(case.name, False, "", about=case.about, status=result.status)
    if result.status != "ok":
        error = result.error or ""
        if result.status == "error" and error.startswith("OverflowError"):
            base.status, base.diagnosis = "ok", ["unstable_softmax"]
            base.message = f"overflowed: {error} (exp of a large score)"
            return base
        if result.status == "error" and found.hints.torch_transpose and "axes don't match" in error:
            base.status, base.diagnosis = "ok", ["missing_transpose"]
            base.message = f"raised {error}: K.transpose(-2, -1) is not PyTorch's transpose"
            return base
        base.message = {
            "error": f"raised {error}",
            "crash": f"crashed: {error}",
            "timeout": f"ran past its time limit: {error}".rstrip(": "),
            "memory": f"ran out of its memory limit: {error}".rstrip(": "),
        }.get(result.status, error or result.status)
        return base
    expected = case.expected
    value = as_returned(result.value, expected.shape)
    weights = None
    whose = ""
    if isinstance(value, tuple):
        kind = "tuple" if type(result.value) is tuple else "list"
        if not value:
            base.message = f"returned an empty {kind}"
            return base
        whose = f"a {kind} whose first item is "
        value, weights = value[0], (value[1] if len(value) > 1 else None)
    if isinstance(value, NotAnArray):
        base.message = (
            f"returned {whose}{value}, not an array: expected an array of numbers "
            f"of shape {expected.shape}"
        )
        return base
    given = np.asarray(value)
    if not np.issubdtype(given.dtype, np.number):
        base.message = f"returned {given.dtype} values, not numbers"
        return base
    real = real_values(given)
    if real is None:
        base.message = COMPLEX_MESSAGE
        return base
    given = real
    if given.shape != expected.shape:
        base.message = f"returned shape {given.shape}, expected {expected.shape}"
        if given.ndim == 0:
            base.message = f"returned {whose}a single number, expected shape {expected.shape}"
        base.diagnosis = ["wrong_shape"]
        return base
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(given.astype(np.float64) - expected)
    finite = diff[np.isfinite(diff)]
    error_size = float(finite.max()) if finite.size else 0.0
    base.max_error = error_size if finite.size == diff.size else None
    if not close(given, expected, case):
        decimals = rounded_to(given, expected)
        if decimals is not None and decimals >= 2:
            base.passed = True
            base.notes = [f"rounded to {decimals} decimals"]
            base.message = (
                f"rounded to {decimals} decimals; matches the reference to that precision"
            )
            return base
        base.diagnosis, base.notes = matching_pitfalls(case, given, found.target, mask)
        base.ruled_out = ruled_out_pitfalls(case, given, found.target, base.diagnosis)
        bad = "nan/inf values" if not np.all(np.isfinite(given)) else f"max error {error_size:.3g}"
        base.message = f"wrong values ({bad})"
        if decimals is not None:
            base.message += f": rounded to {decimals} decimals, too coarse to check"
        for note in base.notes:
            base.message += f"; this {note}"
        return base
    base.passed = True
    base.message = f"matches the reference (max error {error_size:.2g})"
    if weights is not None and found.target == "attention":
        # SPEC: the first item of a tuple is the output; the rest is the code's own business.
        w = np.asarray(weights)
        if case.expected_weights is not None and (
            w.shape != case.expected_weights.shape or not close(w, case.expected_weights, case)
        ):
            base.notes = ["the second item returned is not softmax(QKᵀ/√d_k) (not counted)"]
    return base


def rounded_to(given: np.ndarray, expected: np.ndarray) -> int | None:
    """The number of decimals `given` was rounded to, when it is `expected` rounded."""
    g = given.astype(np.float64)
    e = expected.astype(np.float64)
    if g.size == 0 or not (np.all(np.isfinite(g)) and np.all(np.isfinite(e))):
        return None
    for decimals in range(0, 7):
        unit = 10.0**-decimals
        slack = 1e-6 * np.maximum(1.0, np.abs(g)) * min(1.0, unit * 100)
        if np.all(np.abs(g - np.round(g, decimals)) <= slack) and np.all(
            np.abs(g - e) <= unit / 2 + 1e-4 * np.abs(e) + 1e-9
        ):
            return decimals
    return None


def conclude(grade: Grade) -> Grade:
    """The verdict from the cases: the most serious failure, and every mistake named once,
    unless more cases rule it out than show it (then the cases that showed it were a
    coincidence, such as a scale by sqrt(T_q) on a single query, where it is no scale)."""
    if grade.verdict == "pass":
        statuses = set()
        for case in grade.cases:
            if case.passed:
                continue
            statuses.add(case.status if case.status != "ok" else "wrong")
        grade.verdict = min(statuses, key=SEVERITY.index) if statuses else "pass"
    diagnosis: list[str] = []
    shown = Counter(name for case in grade.cases for name in case.diagnosis)
    against = Counter(name for case in grade.cases for name in case.ruled_out)
    ruled_out = {name for name in shown if against[name] > shown[name]}
    for case in grade.cases:
        case.diagnosis = [name for name in case.diagnosis if name not in ruled_out]
        for name in case.diagnosis:
            if name not in diagnosis:
                diagnosis.append(name)
        for note in case.notes:
            if note not in grade.notes:
                grade.notes.append(note)
    grade.diagnosis = diagnosis
    grade.passed = grade.verdict == "pass" and bool(grade.cases)
    return grade
