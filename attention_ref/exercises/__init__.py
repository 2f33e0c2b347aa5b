"""Coding exercises: their ground truth, the batteries they are graded on, the named mistakes,
and the grader that runs a learner's function in the sandbox.

    grade = grade_exercise(Path("softmax.py"), "stable-softmax", "softmax")

NumPy loads with this package; the engine imports it only when an exercise is graded.
"""

from attention_ref.exercises.batteries import BATTERIES, ExerciseCase, cases_for
from attention_ref.exercises.grader import grade_exercise
from attention_ref.exercises.mistakes import FORM_MISTAKES, MISTAKES

__all__ = ["BATTERIES", "FORM_MISTAKES", "MISTAKES", "ExerciseCase", "cases_for", "grade_exercise"]
