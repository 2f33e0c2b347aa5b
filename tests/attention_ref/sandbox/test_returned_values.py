"""What a submitted function returns, read as a careful grader reads it.

SPEC: the function "returns an array-like (lists too), or a tuple whose first item is the output".
A list of arrays such as `[out, weights]` reads like the tuple `(out, weights)`, unless its items
are the output built piece by piece (rows, batches); a value that is not numbers (None, a dict, a
str, an object whose `__array__` raises) was returned, not raised: the verdict is `wrong` and the
message says what came back. The table `cases/returned_values.tsv` holds learner files with the
verdict a fair grader gives; the agreement over it is printed.
"""

from __future__ import annotations

import csv
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attention_ref.exercises.grader import grade_exercise
from attention_ref.grading import Grade, grade_submission
from attention_ref.sandbox import Limits, Sandbox
from attention_ref.sandbox.arrays import MAX_ITEMS, ArrayFormatError
from attention_ref.sandbox.results import ListValue, NotAnArray, as_returned
from tests.agreement import announce

HERE = Path(__file__).parent
FILES = HERE / "returned"
TABLE = HERE / "cases" / "returned_values.tsv"
LIMITS = Limits(seconds_per_call=20.0, memory_bytes=2 * 2**30)
LONGEST_MESSAGE = 400


@dataclass(frozen=True)
class Row:
    file: str
    verdict: str
    diagnosis: frozenset[str]
    says: str
    why: str


def _rows() -> list[Row]:
    lines = [line for line in TABLE.read_text(encoding="utf-8").splitlines() if line[:1] != "#"]
    return [
        Row(
            r["file"],
            r["verdict"],
            frozenset() if r["diagnosis"] == "-" else frozenset(r["diagnosis"].split(",")),
            r["says"],
            r["why"],
        )
        for r in csv.DictReader(lines, delimiter="\t")
    ]


ROWS = _rows()


def _shown(grade: Grade) -> str:
    """The message a learner reads for the case that decided the verdict."""
    failing = [case for case in grade.cases if not case.passed]
    return (failing or grade.cases)[0].message if grade.cases else grade.message


def _agrees(row: Row, grade: Grade) -> bool:
    return (
        grade.verdict == row.verdict
        and set(grade.diagnosis) == row.diagnosis
        and row.says in _shown(grade)
    )


@pytest.fixture(scope="module")
def grades(request: pytest.FixtureRequest) -> dict[str, Grade]:
    def grade(row: Row) -> tuple[str, Grade]:
        return row.file, grade_submission(FILES / f"{row.file}.py", limits=LIMITS)

    with ThreadPoolExecutor(max_workers=2) as pool:
        graded = dict(pool.map(grade, ROWS))
    agreeing = sum(_agrees(row, graded[row.file]) for row in ROWS)
    line = f"returned values {TABLE.name}: agrees with the grader on {agreeing} of {len(ROWS)}"
    announce(request.config, line)
    return graded


@pytest.mark.slow
@pytest.mark.parametrize("row", ROWS, ids=[row.file for row in ROWS])
def test_a_returned_value_gets_a_fair_verdict(row: Row, grades: dict[str, Grade]) -> None:
    grade = grades[row.file]
    shown = _shown(grade)
    assert (grade.verdict, set(grade.diagnosis)) == (row.verdict, row.diagnosis), (row.why, shown)
    assert row.says in shown, (row.why, shown)
    for case in grade.cases:
        # Returned, not raised: no case may claim an exception the code did not raise.
        assert not case.message.startswith("raised"), case.message
        assert case.status == "ok", case.message
        assert case.message.isprintable() and len(case.message) <= LONGEST_MESSAGE, case.message


@pytest.mark.slow
def test_hostile_text_is_shown_literally_and_briefly(grades: dict[str, Grade]) -> None:
    shown = _shown(grades["hostile_array_object"])
    assert "\x1b" not in shown and "\\x1b" in shown  # the escape is shown, not sent
    assert "[bold red]" in shown  # literal text; the report prints it without markup
    assert shown.count("fake PASS") < 10  # 200 repetitions were cut short


# -- reading a list without knowing its shape is ambiguous: the expected shape decides --------


def _pair(t_q: int, t_k: int, d_v: int) -> ListValue:
    rng = np.random.default_rng(3)
    out, weights = rng.normal(size=(t_q, d_v)), rng.random(size=(t_q, t_k))
    return ListValue((out, weights))


@pytest.mark.parametrize("t_k", [5, 3])  # T_k == d_v makes [out, weights] stack into one array
def test_a_list_of_output_and_weights_reads_like_a_tuple(t_k: int) -> None:
    value = _pair(t_q=4, t_k=t_k, d_v=3)
    read = as_returned(value, (4, 3))
    assert type(read) is tuple and read[0] is value[0] and read[1] is value[1]


def test_a_list_of_rows_or_batches_reads_as_one_array() -> None:
    rows = [np.arange(3.0) + i for i in range(4)]
    assert as_returned(ListValue(rows), (4, 3)).shape == (4, 3)
    batches = [np.ones((4, 3)), np.zeros((4, 3))]  # one output per batch entry, B = 2
    read = as_returned(ListValue(batches), (2, 4, 3))
    assert isinstance(read, np.ndarray) and read.shape == (2, 4, 3)


def test_a_list_of_rows_of_the_wrong_length_reports_the_stacked_shape() -> None:
    rows = [np.arange(2.0)] * 4
    read = as_returned(ListValue(rows), (4, 3))
    assert isinstance(read, np.ndarray) and read.shape == (4, 2)


def test_ragged_rows_are_no_array_and_other_values_are_unchanged() -> None:
    rows = (np.ones(3), np.ones(2))
    read = as_returned(ListValue(rows), (2, 3))
    assert isinstance(read, NotAnArray) and "different shapes ((3,), (2,))" in str(read)
    array, pair = np.ones((2, 3)), (np.ones((2, 3)), None)
    assert as_returned(array, (2, 3)) is array and as_returned(pair, (2, 3)) is pair


# -- the parent trusts nothing the child says about items that are not arrays ---------------


def _decode(value: dict[str, Any], payload: bytes = b"") -> Any:
    return Sandbox._decode_value(value, payload)


def test_items_that_are_not_arrays_are_placed_and_bounded() -> None:
    one = np.arange(2.0)
    value = {
        "form": "list",
        "arrays": [{"dtype": one.dtype.str, "shape": [2]}],
        "not_arrays": [[0, "a dict\x1b[2J" + "x" * 1000]],
    }
    decoded = _decode(value, one.tobytes())
    assert isinstance(decoded, ListValue)
    assert isinstance(decoded[0], NotAnArray) and np.array_equal(decoded[1], one)
    text = str(decoded[0])
    assert "\x1b" not in text and len(text) <= 200 and text.isprintable()
    other = _decode({"form": "other", "arrays": [], "not_arrays": [[0, "None"]]})
    assert other == NotAnArray("None")


@pytest.mark.parametrize(
    "not_arrays",
    [
        "nope",
        [[1, "out of place"]],
        [[0, "a"], [0, "twice"]],
        [[-1, "negative"]],
        [["0", "not an int"]],
        [[True, "a bool is not an index"]],
        [[0, "a", "b"]],
        [[i, "many"] for i in range(MAX_ITEMS + 1)],
    ],
)
def test_malformed_items_that_are_not_arrays_are_refused(not_arrays: Any) -> None:
    with pytest.raises(ArrayFormatError):
        _decode({"form": "tuple", "arrays": [], "not_arrays": not_arrays})


# -- exercises read returned values the same way ---------------------------------------------

_BACKWARD_AS_LIST = """
import numpy as np

def attention_backward(Q, K, V, dO):
    d = Q.shape[-1]
    S = Q @ K.T / np.sqrt(d)
    P = np.exp(S - S.max(axis=-1, keepdims=True))
    P /= P.sum(axis=-1, keepdims=True)
    dV = P.T @ dO
    dP = dO @ V.T
    dS = P * (dP - (dP * P).sum(axis=-1, keepdims=True))
    return [dS @ K / np.sqrt(d), dS.T @ Q / np.sqrt(d), dV]
"""

_SOFTMAX_AS_DICT = """
import numpy as np

def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return {"probabilities": e / e.sum(axis=axis, keepdims=True)}
"""


@pytest.mark.slow
def test_an_exercise_reads_a_list_of_gradients_like_a_tuple(tmp_path: Path) -> None:
    path = tmp_path / "attention-backward.py"
    grade = grade_exercise(
        path, "attention-backward", "attention_backward", source=_BACKWARD_AS_LIST, limits=LIMITS
    )
    assert grade.verdict == "pass", [case.message for case in grade.cases]


@pytest.mark.slow
def test_an_exercise_says_what_came_back_when_it_is_not_an_array(tmp_path: Path) -> None:
    path = tmp_path / "stable-softmax.py"
    grade = grade_exercise(
        path, "stable-softmax", "softmax", source=_SOFTMAX_AS_DICT, limits=LIMITS
    )
    assert grade.verdict == "wrong"
    shown = _shown(grade)
    assert shown.startswith("returned a dict ({'probabilities': array("), shown
    assert "not an array" in shown and "expected an array of numbers of shape" in shown
