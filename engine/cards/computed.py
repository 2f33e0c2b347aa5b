"""Computed cards: the truth is worked out by `attention_ref`, never typed into the bank.

An item names one computation from the fixed menu below (`softmax`, `attention_output`,
`scores_memory`, ...), gives its inputs, and writes its prompt as a template whose `{name}`
placeholders are filled with those inputs:

    - id: softmax-2-1-01-first
      kind: computed
      compute: softmax_entry
      inputs: {scores: [2, 1, 0.1], index: 1}
      vary: [scores]
      abs_tol: 0.01
      prompt: Compute the {index_ordinal} entry of softmax({scores}).

The bank's inputs are what `prompt`, `grade` and `answer_text` use (seed 0). Inputs listed in
`vary` are drawn afresh for every other seed, with `numpy.random.default_rng` seeded by the item
id and the seed (the review number), so a review can be replayed: `at_seed(seed)` is the item
with those inputs filled in, and `prompt_for`, `grade_for` and `answer_for` are shorthands.
Nothing an author writes is evaluated: a computation is a name looked up in `computations`.
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, model_validator

from engine.cards.base import register_kind
from engine.cards.typed import TypedItem
from engine.errors import AnswerError, BankError
from engine.verdict import Verdict

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
# Plain numbers separated by spaces: a list when a list is asked for, not a product.
_SPACED_NUMBERS = re.compile(r"\s*[-+]?[\d.]+(?:e[-+]?\d+)?(?:\s+[-+]?[\d.]+(?:e[-+]?\d+)?)+\s*")


# -- the menu of computations ---------------------------------------------------------------------
Value = float | list[Any]
Inputs = dict[str, Any]

DTYPE_BYTES = {"float16": 2, "float32": 4, "float64": 8}
BYTE_UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}
FLOP_UNITS = {"FLOP": 1, "MFLOP": 10**6, "GFLOP": 10**9, "TFLOP": 10**12}
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
# What a drawn input may be: small integers keep the arithmetic doable by hand.
SCORE_RANGE = (-2, 2)
MATRIX_RANGE = (-2, 2)
HEAD_DIMS = (2, 4, 8, 16, 32, 64, 128, 256, 512)
LENGTHS = (128, 256, 512, 1024, 2048, 4096, 8192)


@dataclass(frozen=True)
class Param:
    """One input of a computation: its kind says how it is checked, shown and drawn."""

    kind: Literal["vector", "matrix", "index", "count", "dim", "length", "dtype", "unit", "flag"]
    default: Any = None  # None: the bank must give it
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Slip:
    """A classic wrong way to compute the value, and what to tell a learner who made it."""

    message: str
    value: Callable[[Inputs], Value | None]


@dataclass(frozen=True)
class Computation:
    name: str
    params: dict[str, Param]
    formula: Callable[[Inputs], Value]
    # Constraints between inputs (matching shapes, indices in range): a message, or None.
    consistent: Callable[[Inputs], str | None] = lambda inputs: None
    slips: tuple[Slip, ...] = ()

    def complete(self, inputs: Inputs) -> Inputs:
        return {
            name: inputs.get(name, param.default)
            for name, param in self.params.items()
            if name in inputs or param.default is not None
        }

    def validate(self, inputs: Inputs) -> None:
        unknown = sorted(set(inputs) - set(self.params))
        if unknown:
            raise ValueError(
                f"{self.name} has no input {unknown[0]!r} (its inputs: {', '.join(self.params)})"
            )
        for name, param in self.params.items():
            if name not in inputs:
                if param.default is None:
                    raise ValueError(f"{self.name} needs the input {name!r}")
                continue
            problem = _param_problem(param, inputs[name])
            if problem:
                raise ValueError(f"input {name!r} of {self.name}: {problem}")
        problem = self.consistent(self.complete(inputs))
        if problem:
            raise ValueError(f"inputs of {self.name}: {problem}")

    def drawable(self) -> tuple[str, ...]:
        kinds = {"vector", "matrix", "dim", "length", "dtype"}
        return tuple(name for name, p in self.params.items() if p.kind in kinds)

    def draw(self, rng: Any, inputs: Inputs, names: tuple[str, ...]) -> Inputs:
        """Fresh values for `names` (same shapes as the bank's), the others kept."""
        drawn = dict(inputs)
        for name in names:
            param = self.params[name]
            old: Any = self.complete(inputs)[name]
            if param.kind == "vector":
                drawn[name] = [
                    int(x) for x in rng.integers(*SCORE_RANGE, endpoint=True, size=len(old))
                ]
            elif param.kind == "matrix":
                shape = (len(old), len(old[0]))
                values = rng.integers(*MATRIX_RANGE, endpoint=True, size=shape)
                drawn[name] = [[int(x) for x in row] for row in values]
            else:
                pool = {"dim": HEAD_DIMS, "length": LENGTHS, "dtype": tuple(DTYPE_BYTES)}[
                    param.kind
                ]
                drawn[name] = pool[int(rng.integers(len(pool)))]
        return drawn

    def truth(self, inputs: Inputs) -> Value:
        return self.formula(self.complete(inputs))


def _param_problem(param: Param, value: Any) -> str | None:
    def is_number(x: Any) -> bool:
        return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)

    def is_row(x: Any) -> bool:
        return isinstance(x, list) and 1 <= len(x) <= 8 and all(is_number(v) for v in x)

    if param.kind == "vector":
        return None if is_row(value) else "expected a list of 1 to 8 finite numbers"
    if param.kind == "matrix":
        if not (isinstance(value, list) and 1 <= len(value) <= 8 and all(map(is_row, value))):
            return "expected a matrix: a list of 1 to 8 rows of 1 to 8 numbers"
        return None if len({len(row) for row in value}) == 1 else "its rows differ in length"
    if param.kind in {"index", "count", "dim", "length"}:
        ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 2**20
        return None if ok else "expected a whole number from 1 (indices count from 1)"
    if param.kind == "dtype":
        return None if value in DTYPE_BYTES else f"expected one of {', '.join(DTYPE_BYTES)}"
    if param.kind == "unit":
        return None if value in param.choices else f"expected one of {', '.join(param.choices)}"
    return None if isinstance(value, bool) else "expected true or false"


def describe_inputs(computation: Computation, inputs: Inputs) -> dict[str, str]:
    """The text each `{placeholder}` of a prompt stands for."""
    shown: dict[str, str] = {}
    for name, value in computation.complete(inputs).items():
        kind = computation.params[name].kind
        shown[name] = _show_input(value)
        if kind == "dtype":
            shown[f"{name}_bytes"] = str(DTYPE_BYTES[value])
        if kind == "index":
            shown[f"{name}_ordinal"] = (
                ORDINALS[value - 1] if value <= len(ORDINALS) else f"#{value}"
            )
    return shown


def _show_input(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_show_input(v) for v in value) + "]"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


# Softmax and attention through the reference kernels.
def _softmax(inputs: Inputs) -> list[float]:
    from attention_ref.reference import stable_softmax

    return [float(x) for x in stable_softmax(inputs["scores"])]


def _sum_normalised(inputs: Inputs) -> list[float] | None:
    total = sum(inputs["scores"])
    return None if total == 0 else [s / total for s in inputs["scores"]]


def _weights_and_output(inputs: Inputs) -> tuple[list[list[float]], list[list[float]]]:
    import numpy as np

    from attention_ref.reference import attention

    Q, K = inputs["Q"], inputs["K"]
    V = inputs.get("V") or np.zeros((len(K), 1))
    out, weights = attention(Q, K, V, causal=inputs.get("causal", False), return_weights=True)
    return weights.tolist(), out.tolist()


def _variant(inputs: Inputs, scale: str, axis: int) -> tuple[Any, Any]:
    """Weights and output computed with a classic slip: another scale or softmax axis."""
    import numpy as np

    from attention_ref.reference import causal_mask, stable_softmax

    q, k = np.asarray(inputs["Q"], float), np.asarray(inputs["K"], float)
    d_k = q.shape[-1]
    divisor = {"sqrt": np.sqrt(d_k), "none": 1.0, "d_k": float(d_k)}[scale]
    s = q @ k.T / divisor
    if inputs.get("causal", False):
        s = s + causal_mask(*s.shape)
    weights = stable_softmax(s, axis=axis)
    v = np.asarray(inputs["V"], float) if inputs.get("V") else np.zeros((len(k), 1))
    return weights, weights @ v


def _attention_shapes(inputs: Inputs) -> str | None:
    Q, K, V = inputs["Q"], inputs["K"], inputs.get("V")
    if len(Q[0]) != len(K[0]):
        return f"Q and K need the same width d_k ({len(Q[0])} and {len(K[0])})"
    if V is not None and len(V) != len(K):
        return f"K and V need the same number of rows T_k ({len(K)} and {len(V)})"
    if "row" in inputs and inputs["row"] > len(Q):
        return f"row {inputs['row']} is past the {len(Q)} queries"
    width = len(K) if V is None else len(V[0])
    if "col" in inputs and inputs["col"] > width:
        return f"col {inputs['col']} is past the {width} columns"
    return None


def _entry(value: Callable[[Inputs], Any]) -> Callable[[Inputs], Any]:
    """The entry (row, col) of a matrix-valued function, or None when it has none."""

    def entry(inputs: Inputs) -> Any:
        full = value(inputs)
        return None if full is None else float(full[inputs["row"] - 1][inputs["col"] - 1])

    return entry


def _row(value: Callable[[Inputs], Any]) -> Callable[[Inputs], Any]:
    def row(inputs: Inputs) -> Any:
        full = value(inputs)
        return None if full is None else [float(x) for x in full[inputs["row"] - 1]]

    return row


def _attention_slips(which: int) -> tuple[Slip, ...]:
    """Slips of attention: `which` is 0 for the weights, 1 for the output."""
    return (
        Slip(
            "that leaves out the scaling: divide the scores by √d_k before the softmax",
            lambda i: _variant(i, "none", -1)[which],
        ),
        Slip(
            "that divides the scores by d_k; the scale is √d_k",
            lambda i: _variant(i, "d_k", -1)[which],
        ),
        Slip(
            "that normalizes each column (axis 0); each query's row of weights must sum to 1",
            lambda i: _variant(i, "sqrt", 0)[which],
        ),
    )


def _memory(inputs: Inputs) -> float:
    n = inputs["T"] ** 2 * inputs["heads"] * inputs["layers"]
    return n * DTYPE_BYTES[inputs["dtype"]] / BYTE_UNITS[inputs["unit"]]


def _decimal_memory(inputs: Inputs) -> float:
    """The same bytes in kB, MB or GB (powers of ten) instead of KiB, MiB or GiB."""
    binary = BYTE_UNITS[inputs["unit"]]
    return _memory(inputs) * binary / 1000 ** round(math.log2(binary) / 10)


def _flops(inputs: Inputs) -> float:
    from attention_ref.reference import attention_flops

    T = inputs["T"]
    total = attention_flops(T, T, inputs["d_k"]) * inputs["heads"] * inputs["layers"]
    return total / FLOP_UNITS[inputs["unit"]]


def _intensity(inputs: Inputs, s_trips: int = 2, per_byte: bool = True) -> float:
    """FLOPs of Q Kᵀ over the bytes of reading Q and K and moving S `s_trips` times."""
    T, d = inputs["T"], inputs["d_k"]
    size = DTYPE_BYTES[inputs["dtype"]] if per_byte else 1
    return 2 * T * T * d / (size * (2 * T * d + s_trips * T * T))


def _exp_limit(inputs: Inputs, base: float = math.e) -> float:
    import numpy as np

    return math.log(float(np.finfo(inputs["dtype"]).max), base)


SCORES = {"scores": Param("vector")}
INDEX = {"index": Param("index")}
QK = {"Q": Param("matrix"), "K": Param("matrix"), "causal": Param("flag", default=False)}
QKV = {**QK, "V": Param("matrix")}
ROW, COL = {"row": Param("index")}, {"col": Param("index")}
SIZES = {"heads": Param("count", default=1), "layers": Param("count", default=1)}


SUM_NORMALISED = (
    "that divides each score by the sum of the scores; softmax divides exponentials, e^sᵢ / Σⱼ e^sⱼ"
)


def _index_in_range(inputs: Inputs) -> str | None:
    n = len(inputs["scores"])
    return None if inputs["index"] <= n else f"index {inputs['index']} is past the {n} scores"


_MENU = (
    Computation(
        "softmax",
        SCORES,
        _softmax,
        slips=(
            Slip(
                SUM_NORMALISED,
                _sum_normalised,
            ),
        ),
    ),
    Computation(
        "softmax_entry",
        {**SCORES, **INDEX},
        lambda i: _softmax(i)[i["index"] - 1],
        _index_in_range,
        slips=(
            Slip(
                SUM_NORMALISED,
                lambda i: None if (v := _sum_normalised(i)) is None else v[i["index"] - 1],
            ),
        ),
    ),
    Computation(
        "jacobian_diagonal",
        SCORES,
        lambda i: [p * (1 - p) for p in _softmax(i)],
        slips=(
            Slip(
                "that is −pᵢ² alone; the diagonal also has the +pᵢ from δᵢᵢ = 1",
                lambda i: [-p * p for p in _softmax(i)],
            ),
            Slip(
                "the factor pᵢ in front is missing: pᵢ(1 − pᵢ)",
                lambda i: [1 - p for p in _softmax(i)],
            ),
        ),
    ),
    Computation(
        "attention_weights_row",
        {**QK, **ROW},
        _row(lambda i: _weights_and_output(i)[0]),
        _attention_shapes,
        tuple(Slip(s.message, _row(s.value)) for s in _attention_slips(0)),
    ),
    Computation(
        "attention_weight",
        {**QK, **ROW, **COL},
        _entry(lambda i: _weights_and_output(i)[0]),
        _attention_shapes,
        tuple(Slip(s.message, _entry(s.value)) for s in _attention_slips(0)),
    ),
    Computation(
        "attention_output_row",
        {**QKV, **ROW},
        _row(lambda i: _weights_and_output(i)[1]),
        _attention_shapes,
        tuple(Slip(s.message, _row(s.value)) for s in _attention_slips(1)),
    ),
    Computation(
        "attention_output",
        {**QKV, **ROW, **COL},
        _entry(lambda i: _weights_and_output(i)[1]),
        _attention_shapes,
        tuple(Slip(s.message, _entry(s.value)) for s in _attention_slips(1)),
    ),
    Computation(
        "score_std",
        {"d_k": Param("dim")},
        lambda i: math.sqrt(i["d_k"]),
        slips=(
            Slip(
                "that is the variance d_k; the standard deviation is its square root",
                lambda i: float(i["d_k"]),
            ),
        ),
    ),
    Computation(
        "scores_memory",
        {
            "T": Param("length"),
            "dtype": Param("dtype"),
            "unit": Param("unit", choices=tuple(BYTE_UNITS)),
            **SIZES,
        },
        _memory,
        slips=(
            Slip(
                "that counts numbers, not bytes: multiply by the bytes per number",
                lambda i: _memory(i) / DTYPE_BYTES[i["dtype"]],
            ),
            Slip(
                "that uses powers of ten; here KiB, MiB and GiB are 2¹⁰, 2²⁰ and 2³⁰ bytes",
                _decimal_memory,
            ),
        ),
    ),
    Computation(
        "attention_flops",
        {
            "T": Param("length"),
            "d_k": Param("dim"),
            "unit": Param("unit", choices=tuple(FLOP_UNITS)),
            **SIZES,
        },
        _flops,
        slips=(
            Slip(
                "that is half the count: a multiply-add is 2 FLOPs, and there are two matrix "
                "products (Q Kᵀ and A V)",
                lambda i: _flops(i) / 2,
            ),
        ),
    ),
    Computation(
        "qk_intensity",
        {"T": Param("length"), "d_k": Param("dim"), "dtype": Param("dtype")},
        _intensity,
        slips=(
            Slip(
                "that counts S once; this card counts its write and the softmax reading it back",
                lambda i: _intensity(i, s_trips=1),
            ),
            Slip(
                "that is FLOPs per number; divide by the bytes per number",
                lambda i: _intensity(i, per_byte=False),
            ),
        ),
    ),
    Computation(
        "exp_overflow",
        {"dtype": Param("dtype")},
        _exp_limit,
        slips=(
            Slip(
                "that is a base-10 logarithm; exp needs the natural log of the largest value",
                lambda i: _exp_limit(i, 10.0),
            ),
        ),
    ),
)
COMPUTATIONS: dict[str, Computation] = {c.name: c for c in _MENU}


# -- the card kind -------------------------------------------------------------------------------
@register_kind
class ComputedItem(TypedItem):
    kind_name: ClassVar[str] = "computed"

    kind: Literal["computed"]
    compute: str
    inputs: dict[str, Any] = Field(default_factory=dict)
    # Inputs drawn afresh on every review but the first (seed 0 shows the bank's inputs).
    vary: tuple[str, ...] = ()
    abs_tol: Annotated[float, Field(ge=0)] | None = None
    rel_tol: Annotated[float, Field(ge=0, le=1)] | None = None
    # The prompt as the author wrote it, with placeholders; `prompt` is it filled in.
    template: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _keep_template(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("template") is None and "prompt" in data:
            data = {**data, "template": data["prompt"]}
        return data

    @model_validator(mode="after")
    def _well_formed(self) -> ComputedItem:
        if self.abs_tol is None and self.rel_tol is None:
            raise ValueError("a computed item needs abs_tol or rel_tol (how close is right)")
        computation = COMPUTATIONS.get(self.compute)
        if computation is None:
            raise ValueError(
                f"compute {self.compute!r} is not one of: {', '.join(sorted(COMPUTATIONS))}"
            )
        computation.validate(self.inputs)  # raises ValueError with the author's mistake
        for name in self.vary:
            if name not in computation.drawable():
                raise ValueError(
                    f"vary names {name!r}, which {self.compute} cannot draw "
                    f"(it can draw: {', '.join(computation.drawable()) or 'nothing'})"
                )
        # The shown prompt is derived data: set it here, once, from the template and inputs.
        object.__setattr__(self, "prompt", self._fill(self.template or self.prompt, computation))
        return self

    def _fill(self, template: str, computation: Computation) -> str:
        shown = describe_inputs(computation, self.inputs)

        def value(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in shown:
                raise ValueError(
                    f"the prompt names {{{name}}}, which is not an input of {self.compute} "
                    f"(placeholders: {', '.join('{' + n + '}' for n in sorted(shown))})"
                )
            return shown[name]

        return _PLACEHOLDER.sub(value, template)

    # -- seeds -----------------------------------------------------------------------------------
    def at_seed(self, seed: int) -> ComputedItem:
        """This item with the inputs of review `seed`: the bank's at seed 0, drawn otherwise."""
        if seed <= 0 or not self.vary:
            return self
        import numpy as np

        rng = np.random.default_rng([zlib.crc32(self.id.encode("utf-8")), seed])
        drawn = COMPUTATIONS[self.compute].draw(rng, self.inputs, self.vary)
        data = self.model_dump(mode="json")
        # The bank's mistakes are wrong answers for the bank's inputs only.
        data.update(inputs=drawn, vary=(), mistakes=(), line=self.line)
        return type(self).model_validate(data)

    def prompt_for(self, seed: int) -> str:
        return self.at_seed(seed).prompt

    def grade_for(self, answer: str, seed: int) -> Verdict:
        return self.at_seed(seed).grade(answer)

    def answer_for(self, seed: int) -> str:
        return self.at_seed(seed).answer_text()

    # -- the truth and grading -------------------------------------------------------------------
    def truth(self) -> Value:
        """The right answer for this item's inputs, from the reference kernels."""
        return COMPUTATIONS[self.compute].truth(self.inputs)

    def answer_text(self) -> str:
        truth = self.truth()
        unit = self.inputs.get("unit")
        shown = _show(truth)
        return f"{shown} {unit}" if isinstance(unit, str) and not isinstance(truth, list) else shown

    def grade_in_process(self, answer: str) -> Verdict:
        truth = self.truth()
        verdict = self._check(answer, truth)
        if verdict.correct or not verdict.valid:
            return verdict
        for mistake in self.mistakes:
            if self._check(answer, _read_author_value(mistake.answer, truth)).correct:
                return _with_feedback(verdict, mistake.message)
        for message, wrong in self.slip_values():
            if self._check(answer, wrong).correct:
                return _with_feedback(verdict, message)
        return verdict

    def slip_values(self) -> list[tuple[str, Value]]:
        """The values the computation's classic slips give for these inputs, with their
        messages; a slip that happens to give the right value here is left out."""
        computation = COMPUTATIONS[self.compute]
        inputs, truth = computation.complete(self.inputs), self.truth()
        found = []
        for slip in computation.slips:
            wrong = slip.value(inputs)
            if wrong is not None and not self._check(_show_exact(truth), wrong).correct:
                found.append((slip.message, wrong))
        return found

    def _check(self, answer: str, expected: Value) -> Verdict:
        from engine.checking import check_number, check_vector

        if isinstance(expected, list):
            if _SPACED_NUMBERS.fullmatch(answer):
                answer = f"[{answer.strip()}]"
            return check_vector(answer, expected, abs_tol=self.abs_tol, rel_tol=self.rel_tol)
        unit = self.inputs.get("unit")
        if isinstance(unit, str) and answer.rstrip().lower().endswith(unit.lower()):
            answer = answer.rstrip()[: -len(unit)]  # `16 MiB` answers a question in MiB
        return check_number(answer, expected, abs_tol=self.abs_tol, rel_tol=self.rel_tol)

    def check_bank_in_process(self) -> list[str]:
        """The truth is finite for the bank's inputs and for a few drawn ones; no listed mistake
        is right."""
        problems = []
        seeds = [0] + ([1, 2, 3] if self.vary else [])
        for seed in seeds:
            item = self.at_seed(seed)
            try:
                values = _flatten(item.truth())
            except (ValueError, ArithmeticError) as exc:
                problems.append(f"inputs {item.inputs} cannot be computed: {exc}")
                continue
            if not all(math.isfinite(v) for v in values):
                problems.append(f"inputs {item.inputs} give a value that is not finite")
            if not item.grade_in_process(_show_exact(item.truth())).correct:
                problems.append(f"the computed answer for inputs {item.inputs} does not check")
            try:
                item.slip_values()
            except (ValueError, ArithmeticError, KeyError, IndexError) as exc:
                problems.append(f"a slip of {self.compute} fails for inputs {item.inputs}: {exc}")
        for mistake in self.mistakes:
            try:
                if self.grade_in_process(mistake.answer).correct:
                    problems.append(f"the mistake {mistake.answer!r} is within the tolerance")
            except (AnswerError, BankError, ValueError) as exc:
                problems.append(f"the mistake {mistake.answer!r} cannot be read: {exc}")
        return problems


def _read_author_value(text: str, like: Value) -> Value:
    from engine.checking import evaluate_number, parse_vector

    return parse_vector(text) if isinstance(like, list) else evaluate_number(text)


def _with_feedback(verdict: Verdict, message: str) -> Verdict:
    from dataclasses import replace

    return replace(verdict, feedback=message)


def _show(value: Value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return f"{value:.4g}"


def _show_exact(value: Value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_show_exact(v) for v in value) + "]"
    return repr(float(value))


def _flatten(value: Value) -> list[float]:
    if isinstance(value, list):
        return [x for v in value for x in _flatten(v)]
    return [float(value)]
