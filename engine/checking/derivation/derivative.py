"""The derivative operator `∂/∂v_j body`, taken by the rules of differentiation.

`notation` marks the operator as `sum(zzdop_v_j*(body))`; `Derivatives.applied` replaces each
such node of a side read by the reader with the derivative of its body, so that the rest of
the checker sees an ordinary expression. Members of an indexed family are independent
variables: ∂v_t/∂v_j is the Kronecker delta δ_tj (1 for v_j itself), so a sum over t is
differentiated term by term, ∂/∂v_j Σ_t a_t v_t = Σ_t a_t δ_tj, which the checker writes out
and finds equal to a_j. A sum inside another function is differentiated by the chain rule.
A defined name is replaced by its definition first; the derivative of a family defined by a
formula (p_i) is written ∂p_i/∂s_j instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.checking.derivation.notation import name_of, read_marker
from engine.checking.derivation.random_polynomial import CannotEvaluate

if TYPE_CHECKING:
    from engine.checking.derivation.reader import StepReader

MAX_DEFINITION_DEPTH = 8


class Derivatives:
    """Takes the derivatives a side asks for with `∂/∂x`, under one reader."""

    def __init__(self, reader: StepReader) -> None:
        self.reader = reader

    def applied(self, expr: Any) -> Any:
        """`expr` with every marked `∂/∂x body` replaced by the derivative of its body;
        CannotEvaluate when one cannot be taken."""
        try:
            return self._applied(expr)
        except CannotEvaluate:
            raise
        except (Exception, RecursionError):  # SymPy failing on a derivative is no verdict
            raise CannotEvaluate("this derivative cannot be taken here") from None

    def _applied(self, expr: Any) -> Any:
        if not expr.args or not any(_operator_of(symbol) for symbol in expr.free_symbols):
            return expr
        arguments = [self._applied(argument) for argument in expr.args]
        expr = expr.func(*arguments)
        if str(expr.func) == "sum" and len(expr.args) == 1:
            for factor in _factors(expr.args[0]):
                variable = _operator_of(factor)
                if variable:
                    return self.of(expr.args[0] / factor, variable)
        return expr

    def of(self, body: Any, variable: str) -> Any:
        """The derivative of `body` with respect to the variable named `variable`."""
        by = self.reader.read(variable)
        if not by.is_Symbol:
            raise CannotEvaluate(f"cannot differentiate by {variable}")
        if str(by) in self.reader.model.vectors:
            # q·k is read through q's components, so the symbol q is in nothing: its derivative
            # would be 0 everywhere.
            raise CannotEvaluate(
                f"{by} is a vector here: differentiate by a component such as ∂/∂{by}_a"
            )
        return self._derivative(self._defined(body), by)

    def _defined(self, body: Any) -> Any:
        """`body` with every defined name replaced by its definition."""
        reader = self.reader
        for _ in range(MAX_DEFINITION_DEPTH):
            names = {name_of(symbol): symbol for symbol in body.free_symbols}
            for name in names:
                family, _ = reader.family_of(name)
                if family in reader.family_definitions:
                    raise CannotEvaluate(
                        f"write the derivative of {name} as ∂{name}/∂x, not with ∂/∂x before it"
                    )
            defined = {names[n]: reader.definitions[n] for n in names if n in reader.definitions}
            if not defined:
                return body
            body = body.xreplace(defined)
        raise CannotEvaluate("a definition refers to itself")

    def _derivative(self, expr: Any, by: Any) -> Any:
        """∂expr/∂by, with every member of `by`'s family (by itself included) a variable and
        every sum that holds one differentiated term by term (the chain rule around it)."""
        import sympy

        variables = {s for s in expr.free_symbols if self._delta(s, by) is not None}
        sums = [
            node
            for node in _outer_sums(expr)
            if any(self._delta(s, by) is not None for s in node.free_symbols)
        ]
        if not variables and not sums:
            return sympy.Integer(0)
        if any(str(f.func) in {"E", "Var"} for f in expr.atoms(sympy.Function)):
            raise CannotEvaluate("a derivative of an E or a Var cannot be taken here")
        stand_ins = {node: sympy.Dummy() for node in sums}
        plain = expr.xreplace(stand_ins)
        total = sympy.Add(
            *(sympy.diff(plain, s) * self._delta(s, by) for s in variables),
            *(sympy.diff(plain, u) * self._sum_derivative(n, by) for n, u in stand_ins.items()),
        )
        return total.xreplace({u: n for n, u in stand_ins.items()})

    def _sum_derivative(self, node: Any, by: Any) -> Any:
        argument = node.args[0]
        marker = next((s for s in _factors(argument) if _sum_index(s)), None)
        if marker is None:
            raise CannotEvaluate("say which index a sum runs over, as in Σ_t a_t v_t")
        _, index = self.reader.family_of(str(by))
        if index is not None and _sum_index(marker) == index:
            raise CannotEvaluate(
                f"the sum runs over {index}, the index of {by}: name the sum's index another letter"
            )
        return node.func(marker * self._derivative(argument / marker, by))

    def _delta(self, symbol: Any, by: Any) -> Any:
        """∂symbol/∂by for a member of `by`'s family: 1 for `by`, δ_tj for another member
        v_t; None for any other symbol."""
        if symbol == by:
            return 1
        by_family, by_index = self.reader.family_of(str(by))
        stem = name_of(symbol).rpartition("_")[0]
        if by_family is None or by_index is None or stem != by_family:
            return None
        family, index = self.reader.family_of(name_of(symbol))
        if family is None or index is None:  # v_1: δ_1j is not a name here
            raise CannotEvaluate(f"write {symbol} with an index letter to differentiate it")
        return self.reader.read(f"delta_{index}{by_index}")


def _operator_of(symbol: Any) -> str:
    marker = read_marker(name_of(symbol))
    return marker[1][0] if marker is not None and marker[0] == "operator" else ""


def _sum_index(symbol: Any) -> str:
    marker = read_marker(name_of(symbol))
    return marker[1][0] if marker is not None and marker[0] == "sum" else ""


def _factors(expr: Any) -> tuple[Any, ...]:
    import sympy

    return sympy.Mul.make_args(expr)


def _outer_sums(expr: Any) -> list[Any]:
    """The sums in `expr` that are not inside another sum."""
    import sympy

    if isinstance(expr, sympy.Function) and str(expr.func) == "sum":
        return [expr]
    return [node for argument in expr.args for node in _outer_sums(argument)]
