"""Checking typed answers: safe parsing of math, equivalence with SymPy, shapes, numbers, vectors.

Importing this package is cheap: SymPy and NumPy load only when an answer is first checked.
"""

from engine.checking.equivalence.expression import check_expression, evaluate_number
from engine.checking.equivalence.number import Precision, check_number
from engine.checking.equivalence.shape import check_shape, parse_shape
from engine.checking.equivalence.vector import check_vector, parse_vector
from engine.checking.reading.notation import normalise

__all__ = [
    "Precision",
    "check_expression",
    "check_number",
    "check_shape",
    "check_vector",
    "evaluate_number",
    "normalise",
    "parse_shape",
    "parse_vector",
]
