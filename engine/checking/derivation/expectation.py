"""Expectation and variance of polynomials in independent standard normal vector components.

The derivation drills reason about q·k where q and k are independent vectors whose components
q_a, k_a are i.i.d. N(0, 1): such a quantity is a `RandomPolynomial` (see `random_polynomial`).
`Lowering` turns a SymPy expression with `E(...)`, `Var(...)`, indexed sums and dot products
into that form, and reduces every E and Var to an exact polynomial in the dimension:

- E is linear, and the expectation of a product of sums is a sum over which of their indices
  coincide (set partitions): independent components factorise into moments E[x^n] of one
  component. With `generic` (the default) each moment stays an unknown (`moment_symbol`), so
  that a step is judged by the rules it uses and not by the numbers N(0, 1) happens to give;
  `random_polynomial.at_normal` puts in E[x] = 0, E[x²] = 1 and E[x^n] = (n-1)!! afterwards;
- Var(X) = E[X²] - E[X]², which gives Var(cX) = c² Var(X) and the sum of variances for a sum of
  independent terms;
- a sum over an index of a term that does not depend on it is the index's range times the term.

`Misconceptions` switch on the classic wrong rules, so that a wrong step can be matched to the
rule the learner most likely used. `used` records the rules a lowering applied.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.checking.derivation.notation import name_of, read_marker, sum_marker
from engine.checking.derivation.random_polynomial import (
    CONSTANT,
    CannotEvaluate,
    Misconceptions,
    Monomial,
    RandomModel,
    RandomPolynomial,
    Term,
    add,
    double_factorial,
    indices_of,
    moment_symbol,
    set_partitions,
)

# Bounds that keep every hostile expression cheap: powers of random quantities, factors whose
# indices may coincide (the set partitions grow as Bell numbers), and terms in one polynomial.
MAX_RANDOM_POWER = 8
MAX_FACTORS = 6
MAX_TERMS = 300
MAX_DEFINITION_DEPTH = 8
# The rule `_variances_of_independent_products` applies, as `used` records it.
PRODUCT_OF_VARIANCES = "Var(XY) = Var(X) Var(Y) for independent zero-mean factors"


class Lowering:
    """Reduces expressions under one random model; `used` collects the rules it applied."""

    def __init__(
        self,
        model: RandomModel,
        misconceptions: Misconceptions | None = None,
        definitions: Mapping[str, Any] | None = None,
        *,
        generic: bool = True,
    ) -> None:
        import sympy

        self.sympy = sympy
        self.generic = generic and misconceptions is None
        self.model = model
        self.wrong = misconceptions or Misconceptions()
        self.definitions = dict(definitions or {})
        self.used: set[str] = set()
        self._depth = 0

    # --- from SymPy to random polynomials -------------------------------------------------

    def lower(self, expr: Any) -> RandomPolynomial:
        sympy = self.sympy
        if self._is_plain(expr):
            return {CONSTANT: expr}
        if expr.is_Symbol:
            return self._symbol(expr.name)
        if isinstance(expr, sympy.Add):
            total: RandomPolynomial = {}
            for argument in expr.args:
                total = add(total, self.lower(argument))
            return total
        if isinstance(expr, sympy.Mul):
            product: RandomPolynomial = {CONSTANT: sympy.Integer(1)}
            arguments = self._variances_of_independent_products(expr.args)
            for argument in arguments:
                product = self.multiply(product, self.lower(argument))
            return product
        if isinstance(expr, sympy.Pow):
            return self._power(expr)
        name = getattr(expr.func, "__name__", "")
        if name == "E":
            return {CONSTANT: self.expectation(self.lower(expr.args[0]))}
        if name == "Var":
            return {CONSTANT: self.variance(expr.args[0])}
        if name == "sum":
            return self._sum(expr.args[0])
        arguments = [self.constant(self.lower(argument), expr) for argument in expr.args]
        return {CONSTANT: expr.func(*arguments)}

    def _is_plain(self, expr: Any) -> bool:
        """Whether `expr` has nothing random, no E, Var or sum, and no defined name in it."""
        for symbol in expr.free_symbols:
            name = name_of(symbol)
            if name in self.definitions or name in self.model.vectors:
                return False
            if self.model.component(name) or (read_marker(name) or ("",))[0] == "dot":
                return False
        return not any(
            getattr(node.func, "__name__", "") in {"E", "Var", "sum"}
            for node in expr.atoms(self.sympy.Function)
        )

    def _symbol(self, name: str) -> RandomPolynomial:
        marker = read_marker(name)
        if marker is not None and marker[0] == "dot":
            first, second = (self.model.vectors.index(v) for v in marker[1])
            self.used.add("dot product")
            monomial = tuple(
                a + b for a, b in zip(self.model.unit(first), self.model.unit(second), strict=True)
            )
            return {Term(bound=(monomial,)): self.sympy.Integer(1)}
        component = self.model.component(name)
        if component is not None:
            position, index = component
            return {Term(free=((index, self.model.unit(position)),)): self.sympy.Integer(1)}
        if name in self.model.vectors:
            raise CannotEvaluate(
                f"{name} is a vector here: write a dot product such as {name}·{name} "
                "or a component such as " + f"{name}_a"
            )
        if name in self.definitions:
            self._depth += 1
            if self._depth > MAX_DEFINITION_DEPTH:
                raise CannotEvaluate(f"the definition of {name} refers to itself")
            try:
                return self.lower(self.definitions[name])
            finally:
                self._depth -= 1
        return {CONSTANT: self.sympy.Symbol(name)}

    def _power(self, expr: Any) -> RandomPolynomial:
        base = self.lower(expr.base)
        exponent = self.constant(self.lower(expr.exp), expr)
        if set(base) <= {CONSTANT}:
            return {CONSTANT: base.get(CONSTANT, self.sympy.Integer(0)) ** exponent}
        if not (exponent.is_Integer and 0 <= exponent <= MAX_RANDOM_POWER):
            raise CannotEvaluate(
                "a random quantity can only be raised to a whole power up to "
                f"{MAX_RANDOM_POWER} here"
            )
        result: RandomPolynomial = {CONSTANT: self.sympy.Integer(1)}
        for _ in range(int(exponent)):
            result = self.multiply(result, base)
        return result

    def _sum(self, argument: Any) -> RandomPolynomial:
        if argument == 0:  # Σ_a 0·0: SymPy has already dropped the index with the zero body
            return {}
        index, body = self._sum_index(argument)
        size = self.sympy.Symbol(self.model.index_sizes[index])
        total: RandomPolynomial = {}
        left_opaque = self.sympy.Integer(0)
        for term, coefficient in self.lower(body).items():
            names = {name_of(s) for s in coefficient.free_symbols}
            if any(index in indices_of(n, self.model.index_sizes) for n in names):
                if term != CONSTANT:
                    raise CannotEvaluate(
                        "a sum of random terms with index-dependent weights is not supported"
                    )
                left_opaque += coefficient  # a sum such as Σ_j e^{s_j} stays a sum
                continue
            free = dict(term.free)
            monomial = free.pop(index, None)
            if monomial is None:
                self.used.add("sum of a constant")
                total = add(total, {term: coefficient * size})
            else:
                bound = tuple(sorted((*term.bound, monomial)))
                total = add(total, {Term(tuple(sorted(free.items())), bound): coefficient})
        if left_opaque != 0:
            marker = self.sympy.Symbol(sum_marker(index))
            total = add(total, {CONSTANT: self.sympy.Function("sum")(marker * left_opaque)})
        return total

    def _sum_index(self, argument: Any) -> tuple[str, Any]:
        """The index a `sum(...)` runs over, and its body without the index marker."""
        markers = [
            s for s in argument.free_symbols if (read_marker(name_of(s)) or ("",))[0] == "sum"
        ]
        if len(markers) == 1:
            index = str(markers[0])[len(sum_marker("")) :]
            body = argument / markers[0]
            if index in self.model.index_sizes and not body.has(markers[0]):
                return index, body
        names = {name_of(s) for s in argument.free_symbols}
        found = set().union(*(indices_of(n, self.model.index_sizes) for n in names))
        if len(found) == 1:
            return found.pop(), argument
        raise CannotEvaluate("say which index a sum runs over, as in Σ_a q_a k_a")

    def constant(self, polynomial: RandomPolynomial, context: Any) -> Any:
        if set(polynomial) <= {CONSTANT}:
            return polynomial.get(CONSTANT, self.sympy.Integer(0))
        name = getattr(context.func, "__name__", "this function")
        raise CannotEvaluate(f"{name} of a random quantity cannot be reduced here; use E or Var")

    def multiply(self, left: RandomPolynomial, right: RandomPolynomial) -> RandomPolynomial:
        product: RandomPolynomial = {}
        for term_a, coefficient_a in left.items():
            for term_b, coefficient_b in right.items():
                product = add(product, {term_a.times(term_b): coefficient_a * coefficient_b})
                if len(product) > MAX_TERMS:
                    raise CannotEvaluate("this expression expands into too many terms")
        return product

    # --- expectation and variance ---------------------------------------------------------

    def expectation(self, polynomial: RandomPolynomial) -> Any:
        random_terms = [term for term in polynomial if term != CONSTANT]
        if len(polynomial) > 1 or any(term.bound for term in random_terms):
            self.used.add("linearity of E")
        total = self.sympy.Integer(0)
        for term, coefficient in polynomial.items():
            total += coefficient * self._term_mean(term)
        return total

    def variance(self, argument: Any) -> Any:
        """Var of a SymPy expression: constant factors first, then E[X²] - E[X]²."""
        sympy = self.sympy
        scale, rest = sympy.Integer(1), argument
        if isinstance(argument, sympy.Mul):
            scale, rest = sympy.Integer(1), sympy.Integer(1)
            for factor in argument.args:
                lowered = self.lower(factor)
                if set(lowered) <= {CONSTANT}:
                    scale *= lowered.get(CONSTANT, sympy.Integer(0))
                else:
                    rest *= factor
        if scale != 1:
            self.used.add("Var(cX) = c² Var(X)")
            if self.wrong.variance_is_linear:
                return scale * self.variance(rest)
            if self.wrong.variance_ignores_constants:
                return self.variance(rest)
            return scale**2 * self.variance(rest)
        polynomial = self.lower(rest)
        random_terms = {t: c for t, c in polynomial.items() if t != CONSTANT}
        if random_terms and all(not t.free and len(t.bound) == 1 for t in random_terms):
            self.used.add("variance of a sum of independent terms")
            if self.wrong.variance_of_sum_as_copies:
                size = sympy.Symbol(self.model.dimension)
                one_term = {Term(free=(("·", t.bound[0]),)): c for t, c in random_terms.items()}
                return size**2 * self._variance_of(one_term)
        else:
            self.used.add("Var(X) = E[X²] - E[X]²")
        return self._variance_of(polynomial)

    def _variances_of_independent_products(self, factors: tuple[Any, ...]) -> list[Any]:
        """`Var(X) Var(Y)` read as `Var(XY)` when the model makes that exact.

        For independent X and Y, Var(XY) = Var(X) Var(Y) + Var(X) E[Y]² + Var(Y) E[X]², so
        the product of the variances is the variance of the product exactly when both means
        are 0. A factor may be Var(X) or Var(X) written out, E[X²] − E[X]². The model says
        which means are 0: every component of a normal vector has mean 0, so E[X] is taken
        with those moments put in, not left unknown; and X and Y are independent when no
        vector has components in both. Any other product of variances
        (a factor with a non-zero mean such as q_a², factors sharing a vector) is left alone,
        and then differs from Var(XY) as it should. The rule used is recorded.
        """
        sympy = self.sympy
        written = {f: _written_variance(f) for f in factors}
        variances = [written[f] for f in factors if written[f] is not None]
        if len(variances) < 2:
            return list(factors)
        used, seen, free = set(self.used), set[int](), set[str]()
        mean = Lowering(self.model, definitions=self.definitions, generic=False)
        try:
            for variance in variances:
                lowered = self.lower(variance.args[0])
                monomials = [m for t in lowered for m in [*(m for _, m in t.free), *t.bound]]
                vectors = {i for m in monomials for i, power in enumerate(m) if power}
                free |= {index for t in lowered for index, _ in t.free}
                if not vectors or vectors & seen or len(free) > 1:
                    return list(factors)  # a constant, shared vectors, or E[q_a k_b] ahead
                if sympy.expand(mean.expectation(lowered)) != 0:
                    return list(factors)  # a mean not known to be 0: the identity fails
                seen |= vectors
        finally:
            self.used = used  # trying the rule applies none
        self.used.add(PRODUCT_OF_VARIANCES)
        rest = [f for f in factors if written[f] is None]
        product = variances[0].func(sympy.Mul(*(v.args[0] for v in variances)))
        return [*rest, product]

    def _variance_of(self, polynomial: RandomPolynomial) -> Any:
        mean = self.expectation(polynomial)
        return self.sympy.expand(self.expectation(self.multiply(polynomial, polynomial)) - mean**2)

    def _term_mean(self, term: Term) -> Any:
        """E of one term: a sum over which of its indices coincide (set partitions)."""
        sympy = self.sympy
        if term == CONSTANT:
            return sympy.Integer(1)
        if len(term.free) > 1:
            raise CannotEvaluate(
                "components with two different free indices (such as q_a k_b) cannot be "
                "averaged here: put them under a sum"
            )
        factors = [monomial for _, monomial in term.free] + list(term.bound)
        if len(factors) > MAX_FACTORS:
            raise CannotEvaluate("this expression multiplies too many sums together")
        has_free = bool(term.free)
        size = sympy.Symbol(self.model.dimension)
        total = sympy.Integer(0)
        for blocks in set_partitions(list(range(len(factors)))):
            value = sympy.Integer(1)
            for block in blocks:
                combined = tuple(map(sum, zip(*(factors[i] for i in block), strict=True)))
                value *= self._moment(combined)
            # Distinct values for the blocks: the block with the free index has its value fixed.
            others = len(blocks) - 1 if has_free else len(blocks)
            start = 1 if has_free else 0
            for offset in range(start, start + others):
                value *= size - offset
            total += value
        if term.bound:
            self.used.add("linearity of E")
        return sympy.expand(total)

    def _moment(self, monomial: Monomial) -> Any:
        """E of a product of powers of independent N(0, 1) components with one index."""
        if sum(1 for power in monomial if power) > 1:
            self.used.add("independence")
        if self.generic:
            moment = self.sympy.Integer(1)
            for vector, power in zip(self.model.vectors, monomial, strict=True):
                if power:
                    self.used.add("zero mean" if power % 2 else "unit variance")
                    moment *= moment_symbol(vector, power)
            return moment
        value = 1
        for power in monomial:
            if power == 0:
                continue
            if power % 2:
                if power == 1 and self.wrong.nonzero_mean:
                    continue
                self.used.add("zero mean")
                return self.sympy.Integer(0)
            if power == 2:
                self.used.add("unit variance")
            value *= double_factorial(power - 1)
        return self.sympy.Integer(value)


def _written_variance(factor: Any) -> Any:
    """`Var(X)` for a factor that is Var(X) or E[X²] − E[X]², else None."""
    import sympy

    if getattr(factor.func, "__name__", "") == "Var":
        return factor
    if not (isinstance(factor, sympy.Add) and len(factor.args) == 2):
        return None
    for square, mean in (factor.args, factor.args[::-1]):
        negated = -mean
        if (
            getattr(square.func, "__name__", "") == "E"
            and isinstance(negated, sympy.Pow)
            and negated.exp == 2
            and getattr(negated.base.func, "__name__", "") == "E"
            and sympy.expand(square.args[0] - negated.base.args[0] ** 2) == 0
        ):
            return sympy.Function("Var")(negated.base.args[0])
    return None
