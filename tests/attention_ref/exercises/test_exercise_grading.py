"""The grader's verdicts on code it has not seen: written the way learners write it."""

from __future__ import annotations

from pathlib import Path

import pytest

from attention_ref.exercises import grade_exercise
from engine.cards.exercise import ExerciseItem
from tests.attention_ref.exercises.conftest import write

LOOPED_SOFTMAX = """
import math

def softmax(x, axis=-1):
    # a learner's version with Python loops over a 2-D list; any rank is not handled
    import numpy as np
    x = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    out = np.empty_like(x)
    for index in np.ndindex(x.shape[:-1]):
        row = x[index]
        top = max(row)
        exps = [math.exp(v - top) if v != -math.inf else 0.0 for v in row]
        total = sum(exps)
        out[index] = [e / total for e in exps]
    return np.moveaxis(out, -1, axis)
"""

MEMORISED = """
import numpy as np

ANSWERS = {}

def softmax(x, axis=-1):
    return np.full(np.shape(x), 1.0 / np.shape(x)[axis])
"""

EINSUM_BACKWARD = """
import numpy as np

def attention_backward(Q, K, V, dO):
    d = Q.shape[1]
    S = np.einsum("id,jd->ij", Q, K) / np.sqrt(d)
    P = np.exp(S - S.max(1, keepdims=True))
    P = P / P.sum(1, keepdims=True)
    dV = np.einsum("ij,id->jd", P, dO)
    dP = np.einsum("id,jd->ij", dO, V)
    dS = P * (dP - np.einsum("ij,ij->i", dP, P)[:, None])
    return dS @ K / np.sqrt(d), dS.T @ Q / np.sqrt(d), dV
"""

OFF_BY_ONE_LOOP = """
import numpy as np

def causal_attention(Q, K, V):
    T_q, T_k = len(Q), len(K)
    out = np.zeros((T_q, V.shape[1]))
    for i in range(T_q):
        s = Q[i] @ K[: i + 2].T / np.sqrt(Q.shape[1])   # sees one key too many
        w = np.exp(s - s.max())
        out[i] = (w / w.sum()) @ V[: i + 2]
    return out
"""


def test_a_loop_based_softmax_over_any_axis_passes(tmp_path: Path) -> None:
    grade = grade_exercise(write(tmp_path, "mine.py", LOOPED_SOFTMAX), "stable-softmax", "softmax")
    assert grade.verdict == "pass", [c.message for c in grade.cases if not c.passed]


def test_an_einsum_backward_passes(tmp_path: Path) -> None:
    path = write(tmp_path, "grad.py", EINSUM_BACKWARD)
    grade = grade_exercise(path, "attention-backward", "attention_backward")
    assert grade.passed, [c.message for c in grade.cases if not c.passed]


def test_a_loop_that_lets_one_future_key_through_is_off_by_one(tmp_path: Path) -> None:
    path = write(tmp_path, "causal.py", OFF_BY_ONE_LOOP)
    grade = grade_exercise(path, "causal-attention", "causal_attention")
    assert grade.verdict == "wrong"
    assert grade.diagnosis == ["causal_off_by_one"]


def test_uniform_weights_fail_with_no_mistake_named(tmp_path: Path) -> None:
    grade = grade_exercise(write(tmp_path, "u.py", MEMORISED), "stable-softmax", "softmax")
    assert grade.verdict == "wrong" and grade.diagnosis == []


def test_each_run_draws_its_own_inputs(tmp_path: Path) -> None:
    path = write(tmp_path, "mine.py", LOOPED_SOFTMAX)
    first = grade_exercise(path, "stable-softmax", "softmax")
    second = grade_exercise(path, "stable-softmax", "softmax")
    assert first.seed != second.seed


def test_the_untouched_starter_is_said_to_be_unwritten(
    tmp_path: Path, exercises: dict[str, ExerciseItem]
) -> None:
    item = exercises["tiled-attention"]
    grade = item.grade_source(item.starter, tmp_path / "tiled-attention.py")
    assert grade.verdict == "error"
    assert "still the starter" in grade.message


def test_a_file_without_the_function_is_not_found(tmp_path: Path) -> None:
    path = write(tmp_path, "x.py", "import numpy as np\n\ndef soft_max(x):\n    return x\n")
    grade = grade_exercise(path, "stable-softmax", "softmax")
    assert grade.verdict == "not_found" and not grade.cases
    assert "softmax" in grade.message


def test_a_function_defined_in_a_top_level_try_is_the_files() -> None:
    from attention_ref.exercises.grader import _unreadable

    fallback = "try:\n    from scipy.special import softmax\nexcept ImportError:\n"
    assert _unreadable(fallback + "    def softmax(x, axis=-1):\n        pass\n", "softmax") is None
    guarded = 'if __name__ == "__main__":\n    def softmax(x, axis=-1):\n        pass\n'
    assert _unreadable(guarded, "softmax") == (
        "not_found",
        "the file defines no function named softmax",
    )


def test_a_syntax_error_is_reported_with_its_line_before_anything_runs(tmp_path: Path) -> None:
    path = write(tmp_path, "x.py", "import numpy as np\n\ndef softmax(x, axis=-1):\n    return (\n")
    grade = grade_exercise(path, "stable-softmax", "softmax")
    assert grade.verdict == "error" and "line" in grade.message and not grade.cases


def test_the_appended_caller_cannot_be_replaced_by_the_submission(tmp_path: Path) -> None:
    # A file that defines the grader's entry point itself still gets its own function called.
    code = (
        "import numpy as np\n\n"
        "def __attnquiz_exercise__(*a, **k):\n    return (np.asarray(0), np.zeros(1))\n\n"
        "def softmax(x, axis=-1):\n    return np.zeros(np.shape(x))\n"
    )
    grade = grade_exercise(write(tmp_path, "sneaky.py", code), "stable-softmax", "softmax")
    assert not grade.passed


FULL_MATRIX_BODY = """
def tiled_attention(Q, K, V, block=64):
    {hide}
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    return (w / w.sum(axis=-1, keepdims=True)) @ V
"""


def test_the_full_score_matrix_is_seen_however_the_file_hides_it_from_python(
    tmp_path: Path,
) -> None:
    # Peak memory is measured by the kernel from outside the sandboxed process: nothing the
    # submission does to Python's own allocation tracing (patching or stopping tracemalloc,
    # allocating through ctypes) hides a T_q x T_k array.
    hiding = {
        "patched": "import numpy as np\nimport tracemalloc\n"
        "tracemalloc.get_traced_memory = lambda: (0, 0)\n" + FULL_MATRIX_BODY.format(hide="pass"),
        "stopped": "import numpy as np\nimport tracemalloc\n"
        + FULL_MATRIX_BODY.format(hide="tracemalloc.stop()"),
    }
    for name, code in hiding.items():
        path = write(tmp_path, f"{name}.py", code)
        grade = grade_exercise(path, "tiled-attention", "tiled_attention")
        memory = next(case for case in grade.cases if case.name == "memory")
        assert not grade.passed, name
        assert memory.diagnosis == ["holds_full_matrix"], (name, memory.message)


COMPLEX_SOFTMAX = """
import numpy as np

def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(complex){}
"""


def test_complex_output_is_judged_by_its_imaginary_part_too(tmp_path: Path) -> None:
    # Casting dropped the imaginary part (with a ComplexWarning on the screen): right + 0.5j
    # was "wrong values (max error 0)", the real part alone with no error at all.
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing the grader does may warn on the screen
        for imaginary, passed in (("", True), (" + 0.5j", False)):
            path = write(tmp_path, "mine.py", COMPLEX_SOFTMAX.format(imaginary))
            grade = grade_exercise(path, "stable-softmax", "softmax")
            assert grade.passed is passed, grade.cases[:1]
    assert "complex values" in grade.cases[0].message


IN_A_CHILD = """
import os
import pickle

import numpy as np


def tiled_attention(Q, K, V, block=64):
    # The whole T_q x T_k matrix, held by a child process of the call.
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        s = Q @ K.T / np.sqrt(Q.shape[-1])
        w = np.exp(s - s.max(axis=-1, keepdims=True))
        with os.fdopen(write, "wb") as out:
            out.write(pickle.dumps((w / w.sum(axis=-1, keepdims=True)) @ V))
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        data = answer.read()
    os.waitpid(pid, 0)
    return pickle.loads(data)
"""


def test_the_full_score_matrix_is_seen_in_a_child_process_of_the_call(tmp_path: Path) -> None:
    # The call's own process never held it, so its resident high-water mark did not rise: the
    # memory its processes hold together (the sandbox's memory cgroup) does.
    grade = grade_exercise(
        write(tmp_path, "child.py", IN_A_CHILD), "tiled-attention", "tiled_attention"
    )
    memory = next(case for case in grade.cases if case.name == "memory")
    assert not grade.passed
    assert memory.diagnosis == ["holds_full_matrix"], memory.message


# Right on small inputs only: a fast path for long sequences that returns garbage.
RIGHT_WHEN_SHORT = """

import numpy as _np

_right = {function}


def {function}(*args, **kwargs):
    if max((a.shape[0] for a in args if isinstance(a, _np.ndarray) and a.ndim), default=0) > 64:
        out = _right(*args, **kwargs)
        return tuple(_np.zeros_like(o) for o in out) if isinstance(out, tuple) else 0 * out
    return _right(*args, **kwargs)
"""


@pytest.mark.parametrize(
    "exercise_id",
    [
        "stable-softmax",
        "attention",
        "causal-attention",
        "multi-head-attention",
        "attention-backward",
    ],
)
def test_code_right_only_on_short_inputs_fails(
    exercises: dict[str, ExerciseItem], exercise_id: str, tmp_path: Path
) -> None:
    # Every battery has a case past the sizes a test by hand uses; without timing (`--no-time`,
    # an exercise card in a session) nothing else would see the long-sequence path.
    item = exercises[exercise_id]
    source = item.solution + RIGHT_WHEN_SHORT.format(function=item.function)
    grade = item.grade_source(source, tmp_path / f"{item.function}.py")
    assert not grade.passed
    assert [c.name for c in grade.cases if not c.passed] == ["long"]
