"""Turn what a learner types into one plain ASCII expression language.

Learners write `softmax(QKᵀ/√dₖ)V` or `p_i(δ_ij − p_j)`; the safe parser (`safe_ast`) only reads
Python-shaped arithmetic such as `softmax(Q*transpose(K)/sqrt(d_k))*V`. This module bridges the
two without ever evaluating anything: after `typography` has rewritten Unicode and LaTeX, it maps
every spelling of a symbol to its canonical name, splits run-together symbols (`QK`), reads `^T`
(and, after a matrix, MATLAB's `K'` and a lower-case `K^t`) as a transpose, forgives capitalised
function names (`Softmax`) and makes juxtaposed products explicit. Whatever it cannot make sense
of it passes through unchanged, so that the safe parser can reject it with a precise message.
"""

from __future__ import annotations

import functools
import keyword
import re
from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

from engine.checking.reading.big_operators import expand_big_operators
from engine.checking.reading.brackets import ROUND, matching_close, matching_open
from engine.checking.reading.safe_ast import CONSTANT_NAMES, FUNCTION_ALIASES, FUNCTION_NAMES
from engine.checking.reading.typography import TRANSPOSE_MARK, to_ascii
from engine.errors import AnswerError

# `δij`, `deltaij`: the Kronecker delta with its two indices run together, as written by hand.
_RUN_TOGETHER_DELTA = re.compile(r"(?:δ|(?<![A-Za-z])delta)([a-z]{2})(?![A-Za-z0-9_])")
_KRONECKER = re.compile(r"KroneckerDelta\(\s*([A-Za-z])\s*,\s*([A-Za-z])\s*\)")
_TOKEN = re.compile(
    r"(?P<space>\s+)|(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>\*\*|[-+*/@^])|(?P<open>[(\[])|(?P<close>[)\]])"
    r"|(?P<comma>,)|(?P<root>[√∛∜])|(?P<mark>⊤)|(?P<other>.)",
    re.DOTALL,
)
TOKENISED_KEPT = 2048
NAME_TABLES_KEPT = 256


# Function names a learner may capitalise: `Softmax(...)` is softmax(...). Not E or Var, whose
# capitals are their names, nor single letters.
CASELESS_FUNCTIONS = frozenset(
    {"softmax", "sqrt", "exp", "log", "ln", "abs", "max", "min", "sin", "cos", "tan", "sinh"}
    | {"cosh", "tanh", "sigmoid"}
)


# Standard functions of one argument, which mathematicians apply without brackets (`sin x`,
# `ln 2x`) and raise to a power before the argument (`sin^2 x`, `cos²(x)`); `f^-1` is the
# inverse function where there is one (`sin^-1(x)` is arcsin x, not 1/sin x).
INVERSE_FUNCTIONS = {
    "sin": "asin", "cos": "acos", "tan": "atan", "sec": "asec", "csc": "acsc", "cot": "acot",
    "sinh": "asinh", "cosh": "acosh", "tanh": "atanh", "sech": "asech", "csch": "acsch",
    "coth": "acoth",
}  # fmt: skip
APPLIED_FUNCTIONS = frozenset(INVERSE_FUNCTIONS) | frozenset(INVERSE_FUNCTIONS.values())
APPLIED_FUNCTIONS |= {"log", "ln", "exp", "log10", "log2", "lg", "abs"}
# What a run-together word may be made of besides the question's symbols: `sinx`, `2pir`.
_WORD_PIECES = APPLIED_FUNCTIONS | {"pi"}
# Words for constants and letters that Python reserves: `infinity` is ∞, `lambda` the letter λ.
WORD_SPELLINGS = {"infinity": "inf", "Infinity": "inf", "infty": "inf", "lambda": "lamda"}
WORD_SPELLINGS |= {"varphi": "phi", "vartheta": "theta", "varepsilon": "epsilon", "varrho": "rho"}
# `log_2(x)`, `log_{10} x`, `log_b(x)`: a logarithm to the base written as its subscript.
_LOG_BASE = re.compile(r"log_([0-9]+|[A-Za-z])")


class Token(NamedTuple):
    kind: str  # number, name, op, open, close, comma, root, mark (transpose) or other
    text: str


def normalise(
    text: str,
    *,
    symbols: Collection[str] = (),
    aliases: Mapping[str, Sequence[str]] | None = None,
    matrices: Collection[str] = (),
    families: Collection[str] | None = None,
) -> str:
    """Rewrite `text` into the ASCII expression language that `safe_ast` reads.

    `symbols` are the canonical names the question uses, `aliases` maps a canonical name to its
    other spellings, and `matrices` names the symbols that stand for matrices (a `^T` after one of
    them is always a transpose). `families` (a typed answer's indexed families, `s` for s_j) lets
    a sum written without its index be read (`big_operators`). Raises AnswerError for LaTeX that
    cannot be read.
    """
    names = _name_table(symbols, aliases or {})
    text = expand_big_operators(text, names.whole, families)
    tokens = [t for t in _whole_denominators(tokenise(text)) if t.kind != "space"]
    _refuse_sign_slips(tokens)
    tokens = _root_exponents(tokens)
    tokens = _mark_transposes(tokens, names, set(matrices))
    tokens = apply_functions(names.resolve(tokens), names)
    return _assemble(_wrap_roots(tokens), names)


def _whole_denominators(tokens: list[Token]) -> list[Token]:
    """`T d_k / 4(d_k + T)` is T d_k / (4 (d_k + T)): a number written against a bracket just
    after a slash is the denominator as one product, as it is on paper. (A letter after the
    number, `1/2x`, is left to the usual order, x/2; a power after the bracket too.) `tokens`
    still hold the spaces, which tell `4(` from `4 (`."""
    out: list[Token] = []
    closes: dict[int, int] = {}  # index in `tokens` of a bracket's close -> extra `)` after it
    i = 0
    while i < len(tokens):
        token = tokens[i]
        out.append(token)
        for _ in range(closes.pop(i, 0)):
            out.append(Token("close", ")"))
        if token.text == "/":
            j = i + 1
            while j < len(tokens) and tokens[j].kind == "space":
                j += 1
            if j + 1 < len(tokens) and tokens[j].kind == "number" and tokens[j + 1].kind == "open":
                end = _matching_close(tokens, j + 1)
                after = tokens[end + 1] if end is not None and end + 1 < len(tokens) else None
                if end is not None and (after is None or after.text not in {"^", "**", "!"}):
                    out.extend(tokens[i + 1 : j])
                    out.append(Token("open", "("))
                    closes[end] = closes.get(end, 0) + 1
                    i = j
                    continue
        i += 1
    return out


def _root_exponents(tokens: list[Token]) -> list[Token]:
    """`d_k^1/2` is d_k^(1/2): an exponent of 1 is never written on purpose, so `^1/n` with a
    whole number n is the root that the missing brackets were meant to make."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        window = tokens[i : i + 4]
        after = tokens[i + 4] if i + 4 < len(tokens) else None
        if (
            len(window) == 4
            and window[0].text in {"^", "**"}
            and window[1].text == "1"
            and window[2].text == "/"
            and window[3].kind == "number"
            and window[3].text.isdigit()
            and (after is None or (after.kind in {"op", "close", "comma"} and after.text != "^"))
            and (after is None or after.text != "**")
        ):
            out += [window[0], Token("open", "("), window[1], window[2], window[3]]
            out.append(Token("close", ")"))
            i += 4
            continue
        out.append(tokens[i])
        i += 1
    return out


def tokenise(text: str) -> list[Token]:
    """Split rewritten text into tokens (Unicode and LaTeX are rewritten first)."""
    return list(_tokens(text))


@functools.lru_cache(maxsize=TOKENISED_KEPT)
def _tokens(text: str) -> tuple[Token, ...]:
    """`tokenise`, remembered: a question's spellings and texts are split again for every
    answer graded (a pure function of `text`; the last `TOKENISED_KEPT` texts are kept)."""
    plain = _KRONECKER.sub(r"delta_\1\2", to_ascii(_RUN_TOGETHER_DELTA.sub(r"δ_\1", text)))
    return tuple(Token(m.lastgroup or "other", m.group()) for m in _TOKEN.finditer(plain))


def _name_table(symbols: Collection[str], aliases: Mapping[str, Sequence[str]]) -> _NameTable:
    """The name table of one question, built once: every answer to it is read with the same
    one (a table does not change once built)."""
    spellings = tuple((name, tuple(written)) for name, written in aliases.items())
    return _table_for(frozenset(symbols), spellings)


@functools.lru_cache(maxsize=NAME_TABLES_KEPT)
def _table_for(
    symbols: frozenset[str], spellings: tuple[tuple[str, tuple[str, ...]], ...]
) -> _NameTable:
    return _NameTable(symbols, dict(spellings))


class _NameTable:
    """The canonical names of one question and every spelling that maps onto them."""

    def __init__(self, symbols: Collection[str], aliases: Mapping[str, Sequence[str]]) -> None:
        self.canonical = set(symbols) | set(aliases)
        self.single: dict[str, str] = {name: name for name in self.canonical}
        self.multi: list[tuple[tuple[Token, ...], str]] = []
        for name, spellings in aliases.items():
            for spelling in spellings:
                tokens = tuple(t for t in tokenise(spelling) if t.kind != "space")
                if len(tokens) == 1 and tokens[0].kind == "name":
                    self.single[tokens[0].text] = name
                elif tokens:
                    self.multi.append((tokens, name))
        self.multi.sort(key=lambda entry: -len(entry[0]))  # longest spelling wins
        # Names whose subscript is part of the name, not an index a sum runs over: the declared
        # symbols (`d_k`) and their spellings; `s_j`, found in an author's answer, is a family.
        self.whole = set(aliases) | {
            spelling for spelling, name in self.single.items() if name in aliases
        }

    def is_known(self, name: str) -> bool:
        return name in self.single or name in FUNCTION_NAMES or name in CONSTANT_NAMES

    def resolve(self, tokens: list[Token]) -> list[Token]:
        """Replace every spelling by its canonical name and split run-together symbols."""
        out: list[Token] = []
        # A learner who drops the underscore of one name (`pj` for p_j) drops it everywhere:
        # then `pi` is p_i too, where the question has p_i (`2π` alone stays π).
        habit = any(
            t.kind == "name"
            and not self.is_known(t.text)
            and self.without_underscore(t.text) is not None
            for t in tokens
        )
        i = 0
        while i < len(tokens):
            for spelling, name in self.multi:
                if tuple(tokens[i : i + len(spelling)]) == spelling:
                    out.append(Token("name", name))
                    i += len(spelling)
                    break
            else:
                out.extend(self._resolve_one(tokens[i], habit))
                i += 1
        return out

    def _resolve_one(self, token: Token, habit: bool = False) -> list[Token]:
        if token.kind != "name":
            return [token]
        if token.text in self.single:
            return [Token("name", self.single[token.text])]
        if habit or not self.is_known(token.text):
            dropped = self.without_underscore(token.text)
            if dropped is not None:  # `pj` for p_j
                return [Token("name", dropped)]
        if self.is_known(token.text):
            return [token]
        if token.text in WORD_SPELLINGS:
            return [Token("name", WORD_SPELLINGS[token.text])]
        if token.text in FUNCTION_ALIASES:  # arcsin, arctan, lg
            return [Token("name", FUNCTION_ALIASES[token.text])]
        if token.text.lower() in CASELESS_FUNCTIONS:  # Softmax, SQRT, Exp
            return [Token("name", token.text.lower())]
        parts = self.split(token.text)
        if parts is None:
            folded = self.other_case(token.text)
            if folded is not None:  # `D_K` with caps lock on, where only d_k is known
                return [Token("name", folded)]
            return [token]  # left for the safe parser to reject by name
        return [Token("name", self.single.get(part, part)) for part in parts]

    def without_underscore(self, word: str) -> str | None:
        """The one subscripted name of the question that `word` spells without its underscore
        (`pj` -> p_j, `Tq` -> T_q); None when none or more than one does, or when `word` is a
        function."""
        if len(word) < 2 or "_" in word or word in FUNCTION_NAMES:
            return None
        found = {
            self.single[f"{word[:cut]}_{word[cut:]}"]
            for cut in range(1, len(word))
            if f"{word[:cut]}_{word[cut:]}" in self.single
        }
        return found.pop() if len(found) == 1 else None

    def other_case(self, word: str) -> str | None:
        """The one canonical name that `word`, typed in another case, spells; None when no name
        or more than one (`q` and `Q` both known) does."""
        found = {
            name for spelling, name in self.single.items() if spelling.casefold() == word.casefold()
        }
        return found.pop() if len(found) == 1 else None

    def split(self, word: str) -> list[str] | None:
        """Split `word` into known spellings (`QK` -> Q, K; `sinx` -> sin, x; `pir` -> pi, r),
        preferring the fewest parts."""
        best: list[list[str] | None] = [[]] + [None] * len(word)
        for end in range(1, len(word) + 1):
            for start in range(end):
                head, piece = best[start], word[start:end]
                if head is not None and (piece in self.single or piece in _WORD_PIECES):
                    candidate = [*head, piece]
                    current = best[end]
                    if current is None or len(candidate) < len(current):
                        best[end] = candidate
        return best[-1]


def _mark_transposes(tokens: list[Token], names: _NameTable, matrices: set[str]) -> list[Token]:
    """Turn `^T`, `**T` and `.T` into transpose marks; `^T` stays a power when T is a symbol."""
    out: list[Token] = []
    for token in tokens:
        before = out[-1] if out else None
        if token.text == "'" and before is not None and _ends_matrix(before, names, matrices):
            out.append(Token("mark", TRANSPOSE_MARK))  # MATLAB's K'
            continue
        if (
            token == Token("name", "t")
            and before is not None
            and before.text in {"^", "**"}
            and "t" not in names.single
            and len(out) > 1
            and _ends_matrix(out[-2], names, matrices)
        ):
            out[-1] = Token("mark", TRANSPOSE_MARK)  # K^t, lower case
            continue
        is_t = token.kind == "name" and token.text.startswith("T")
        if is_t and before is not None and before.text in {"^", "**", "."}:
            rest = token.text[1:]
            whole_known = names.is_known(token.text) and token.text != "T"
            t_is_symbol = "T" in names.single
            # With T a symbol, `^T` is still a transpose right after a matrix or a bracket in a
            # question that has matrices: (QK)^T.
            base = out[-2] if len(out) > 1 else None
            after_matrix = base is not None and (
                any(base.text.endswith(m) for m in matrices)
                or (base.kind == "close" and bool(matrices))
            )
            if before.text == "." or (not whole_known and (not t_is_symbol or after_matrix)):
                out[-1] = Token("mark", TRANSPOSE_MARK)
                if rest:
                    out.append(Token("name", rest))
                continue
        out.append(token)
    return out


def _ends_matrix(token: Token, names: _NameTable, matrices: set[str]) -> bool:
    """Whether `token` ends a matrix operand: a matrix symbol (`QK` too) or a closing bracket."""
    if not matrices:
        return False
    if token.kind == "close" or token.kind == "mark":
        return True
    if token.kind != "name":
        return False
    parts = [names.single.get(token.text, token.text)] if token.text in names.single else None
    parts = parts or names.split(token.text) or []
    return bool(parts) and names.single.get(parts[-1], parts[-1]) in matrices


def _refuse_sign_slips(tokens: list[Token]) -> None:
    """Signs in a row are a typing slip (`1++2`, `--2`, `2^--2`), except a minus after a `+`
    or `-` between terms (`1 - -1`, `1 + -1`) and a leading `+-1`. (Raises AnswerError.)"""
    run: list[str] = []
    for at, token in enumerate([*tokens, Token("other", "")]):
        if token.text in {"+", "-"}:
            run.append(token.text)
            continue
        if len(run) > 1:
            start = at - len(run)
            between_terms = start > 0 and _ends_term(tokens[start - 1])
            allowed = (
                len(run) == 2
                and run[1] == "-"
                and (between_terms or (start == 0 and run[0] == "+"))
            )
            if not allowed:
                raise AnswerError(
                    f"could not read this: `{run[0]}{run[1]}` puts signs in a row; type one sign"
                )
        run = []


def _ends_term(token: Token) -> bool:
    return token.kind in {"number", "close", "mark"} or (
        token.kind == "name" and token.text not in FUNCTION_NAMES
    )


def apply_functions(tokens: list[Token], names: _NameTable) -> list[Token]:
    """Give every standard function its bracketed argument, as an examiner reads it.

    `sin x` and `ln 2x` apply the function to the juxtaposed operand that follows (up to the
    next operator or function); `sin^2 x`, `sin**2(x)` and `sin²(x)` are powers of the value,
    `sin^-1(x)` the inverse function; `n!` and `(n+1)!` are factorials; `log_2(x)` is a
    logarithm to base 2. Anything else is left as it is, for the parser to judge.
    """
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        # One `!` after an operand is a factorial; `!!` and `!=` are something else.
        single = not (_next_is(tokens, i, "=") or _next_is(tokens, i, "!"))
        if token.text == "!" and out and out[-1].text != "!" and single:
            start = _operand_start(out)
            if start is not None:
                out[start:] = [Token("name", "factorial"), Token("open", "("), *out[start:]]
                out.append(Token("close", ")"))
                i += 1
                continue
        function, base = _applied_function(token, names)
        if function is None:
            out.append(token)
            i += 1
            continue
        j = i + 1
        exponent, j = _function_exponent(tokens, j)
        argument, j = _function_argument(tokens, j)
        if argument is None:
            out.append(token)
            i += 1
            continue
        argument = apply_functions(argument, names)
        if base is not None:
            argument = [*argument, Token("comma", ","), base]
        if exponent is not None and _is_minus_one(exponent) and function in INVERSE_FUNCTIONS:
            function, exponent = INVERSE_FUNCTIONS[function], None
        call = [Token("name", function), Token("open", "("), *argument, Token("close", ")")]
        if exponent is not None:
            call = [Token("open", "("), *call, Token("close", ")"), Token("op", "^")]
            call += [Token("open", "("), *exponent, Token("close", ")")]
        out.extend(call)
        i = j
    return out


_WHOLE_NUMBER_FACTORIAL = re.compile(r"\s*\d{1,3}\s*!")


def refuse_final_exclamation(answer: str, *, factorials: bool) -> None:
    """A lone `!` at the very end (`d_k!`) is read as a factorial only in a question whose
    answer has factorials, or after a whole number typed alone (`5!`, the usual way to write
    120); elsewhere it is more likely emphasis, so it is not graded either way.
    (Raises AnswerError.)"""
    stripped = answer.rstrip()
    if factorials or not stripped.endswith("!") or stripped.count("!") != 1:
        return
    if _WHOLE_NUMBER_FACTORIAL.fullmatch(stripped):
        return
    raise AnswerError(
        "could not read this: the `!` at the end would be a factorial; write factorial(...) "
        "if you mean one, otherwise leave the `!` out"
    )


def uses_factorials(text: str) -> bool:
    return "!" in text or re.search(r"(?<![\w.])fact(?:orial)?\s*\(", text) is not None


def _next_is(tokens: list[Token], i: int, text: str) -> bool:
    return i + 1 < len(tokens) and tokens[i + 1].text == text


def _applied_function(token: Token, names: _NameTable) -> tuple[str | None, Token | None]:
    """The standard function `token` names (and the base of `log_b`), or None."""
    if token.kind != "name":
        return None, None
    if token.text in APPLIED_FUNCTIONS:
        return token.text, None
    base = _LOG_BASE.fullmatch(token.text)
    if base is None or token.text in names.single:
        return None, None
    kind = "number" if base.group(1).isdigit() else "name"
    return "log", Token(kind, names.single.get(base.group(1), base.group(1)))


def _function_exponent(tokens: list[Token], j: int) -> tuple[list[Token] | None, int]:
    """A numeric exponent written between a function and its argument: `^2`, `**2`, `^(-1)`."""
    if j >= len(tokens) or tokens[j].text not in {"^", "**"}:
        return None, j
    k = j + 1
    bracketed = k < len(tokens) and tokens[k].kind == "open"
    k += bracketed
    sign = k < len(tokens) and tokens[k].text in {"-", "+"}
    k += sign
    if k >= len(tokens) or tokens[k].kind != "number":
        return None, j
    exponent = tokens[j + 1 + bracketed : k + 1]
    k += 1
    if bracketed:
        if k >= len(tokens) or tokens[k].kind != "close":
            return None, j
        k += 1
    return exponent, k


def _is_minus_one(exponent: list[Token]) -> bool:
    return [t.text for t in exponent] == ["-", "1"]


def _function_argument(tokens: list[Token], j: int) -> tuple[list[Token] | None, int]:
    """The argument after a function: a bracketed group, a bracketed call of another function,
    or the juxtaposed operands that follow (`2x`, `x^2`, `n!`), up to the next operator,
    bracket or function."""
    if j < len(tokens) and tokens[j].kind == "open":
        end = _matching_close(tokens, j)
        return (None, j) if end is None else (tokens[j + 1 : end], end + 1)
    run: list[Token] = []
    called = j + 1 < len(tokens) and tokens[j + 1].kind == "open"
    if called and tokens[j].kind == "name" and tokens[j].text in FUNCTION_NAMES:
        # `ln sqrt(x)`, `ln |x|`: a bracketed call is an operand, ln(sqrt(x)).
        end = _matching_close(tokens, j + 1)
        if end is None:
            return None, j
        run, j = tokens[j : end + 1], end + 1
    while j < len(tokens):
        token = tokens[j]
        operand = token.kind == "number" or (token.kind == "name" and _is_operand(token.text))
        if operand or token.kind == "mark" or (token.text == "!" and run):
            run.append(token)
            j += 1
        elif token.text in {"^", "**"} and run and j + 1 < len(tokens):
            power, j = _power_operand(tokens, j + 1)
            if power is None:
                return None, j
            run.extend([Token("op", "^"), *power])
        else:
            break
    return (run or None), j


def _power_operand(tokens: list[Token], j: int) -> tuple[list[Token] | None, int]:
    """The exponent after `^` inside a bare argument: `2`, `-1`, `n`, or a bracketed group."""
    sign = [tokens[j]] if tokens[j].text in {"-", "+"} else []
    j += len(sign)
    if j >= len(tokens):
        return None, j
    if tokens[j].kind == "open":
        end = _matching_close(tokens, j)
        if end is None:
            return None, j
        return [*sign, *tokens[j : end + 1]], end + 1
    if tokens[j].kind in {"number", "name"}:
        return [*sign, tokens[j]], j + 1
    return None, j


def _outline(tokens: list[Token]) -> str:
    """One character a token, `(` for an opening bracket and `)` for a closing one, for the
    bracket scanner."""
    return "".join(_OUTLINE.get(token.kind, " ") for token in tokens)


_OUTLINE = {"open": "(", "close": ")"}


def _matching_close(tokens: list[Token], j: int) -> int | None:
    """Where the bracket `tokens[j]` opens is closed; None if it never is."""
    return matching_close(_outline(tokens), j, ROUND)


def _operand_start(out: list[Token]) -> int | None:
    """Where the operand that `out` ends with begins: a number, a name, or a bracketed group
    with the function called on it (`sin(x)`)."""
    last = out[-1]
    if last.kind in {"number", "name"} and _is_operand(last.text):
        return len(out) - 1
    if last.kind != "close":
        return None
    k = matching_open(_outline(out), len(out) - 1, ROUND)
    if k is None:
        return None
    called = k > 0 and out[k - 1].kind == "name" and out[k - 1].text in FUNCTION_NAMES
    return k - 1 if called else k


_ROOT_DEGREES = {"√": "2", "∛": "3", "∜": "4"}


def _wrap_roots(tokens: list[Token]) -> list[Token]:
    """`√x` and `sqrt x` take the next single operand: `√d_k` -> `sqrt(d_k)`; `∛x` and `∜x`
    are roots of degree 3 and 4."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if not (token.kind == "root" or token == Token("name", "sqrt")):
            out.append(token)
            continue
        degree = _ROOT_DEGREES.get(token.text, "2")
        if degree == "2":
            out.append(Token("name", "sqrt"))
            if i < len(tokens) and tokens[i].kind in {"name", "number"}:
                out.extend([Token("open", "("), tokens[i], Token("close", ")")])
                i += 1
            continue
        end = _matching_close(tokens, i) if i < len(tokens) and tokens[i].kind == "open" else None
        if end is not None:
            argument, i = tokens[i + 1 : end], end + 1
        elif i < len(tokens) and tokens[i].kind in {"name", "number"}:
            argument, i = [tokens[i]], i + 1
        else:
            out.append(Token("name", "root"))  # left for the parser to refuse
            continue
        out += [Token("name", "root"), Token("open", "("), *_wrap_roots(argument)]
        out += [Token("comma", ","), Token("number", degree), Token("close", ")")]
    return out


def _assemble(tokens: list[Token], names: _NameTable) -> str:
    """Write tokens out, adding `*` between juxtaposed operands and wrapping transposes."""
    out: list[str] = []
    operand_start: int | None = None  # where the operand that ended last begins in `out`
    opened: list[int] = []  # for every open bracket, where the operand it starts begins
    previous: Token | None = None
    for token in tokens:
        ends_operand = previous is not None and (
            previous.kind in {"number", "close", "mark"}
            or (
                previous.kind == "name"
                and (_is_operand(previous.text) or previous.text in names.single)
            )
        )
        # Only a name we know to be a symbol multiplies a following bracket (`p_i(...)`); an
        # unknown name keeps its call shape so that the safe parser can name it in its message.
        is_call = (
            previous is not None
            and previous.kind == "name"
            and token.text == "("
            and not (previous.text in names.single or previous.text in CONSTANT_NAMES)
        )
        starts_operand = token.kind == "number" or (token.text == "(" and not is_call)
        if ends_operand and (
            starts_operand or (token.kind == "name" and not keyword.iskeyword(token.text))
        ):
            out.append("*")
        if token.kind == "mark":
            if operand_start is None or not ends_operand:
                raise AnswerError("could not read this: a transpose needs a matrix before it")
            out[operand_start:operand_start] = ["transpose", "("]
            out.append(")")
        elif token.kind == "open":
            opened.append(len(out) - 1 if is_call else len(out))
            out.append(token.text)
        elif token.kind == "close":
            operand_start = opened.pop() if opened else None
            out.append(token.text)
        else:
            operand_start = len(out) if token.kind in {"name", "number"} else None
            out.append("**" if token.text == "^" else token.text)
        previous = token
    return " ".join(out)


def _is_operand(name: str) -> bool:
    # Python keywords (`for`, `lambda`, `in`) are no operands: leaving them alone lets the safe
    # parser name the construct it refuses instead of reporting a garbled product.
    return name not in FUNCTION_NAMES and not keyword.iskeyword(name)


def names_used(
    text: str,
    *,
    symbols: Collection[str] = (),
    aliases: Mapping[str, Sequence[str]] | None = None,
    matrices: Collection[str] = (),
) -> set[str]:
    """The canonical symbol names `text` uses, including names not declared anywhere.

    A bank author's answer may use symbols the bank never declared (`p_i`, `T`); this finds them
    the way `normalise` would read them, so a run-together `QK` counts as Q and K when both are
    declared, and the `T` of `K^T` counts as a transpose unless T is declared.
    """
    names = _name_table(symbols, aliases or {})
    text = expand_big_operators(text, names.whole)
    tokens = [t for t in tokenise(text) if t.kind != "space"]
    tokens = names.resolve(_mark_transposes(tokens, names, set(matrices)))
    tokens = apply_functions(tokens, names)
    return {
        t.text
        for at, t in enumerate(tokens)
        if t.kind == "name"
        and t.text not in CONSTANT_NAMES
        and (t.text not in FUNCTION_NAMES or _symbol_not_call(tokens, at))
    }


def _symbol_not_call(tokens: list[Token], at: int) -> bool:
    """Whether a function's name stands for a symbol here: `E` (an expectation when called) is
    a field or an energy in `ε_0 E`."""
    return len(tokens[at].text) == 1 and not (
        _next_is(tokens, at, "(") or _next_is(tokens, at, "[")
    )
