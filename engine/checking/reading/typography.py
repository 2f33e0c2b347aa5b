"""Rewrite Unicode and LaTeX math into plain ASCII text.

`QKᵀ/√dₖ` and `\\frac{QK^\\top}{\\sqrt{d_k}}` both become ASCII that `notation` can tokenise:
Greek letters become their names, sub- and superscripts become `_k` and `^(2)`, LaTeX commands
become function calls and brackets. Transposes written unambiguously (`ᵀ`, `^\\top`) become one
marker character; `^T` is left for `notation`, which knows whether `T` is a symbol.
"""

from __future__ import annotations

import re
import unicodedata

from engine.checking.reading.brackets import BRACES, matching_close
from engine.checking.reading.safe_ast import FUNCTION_NAMES, IGNORABLE_CHARS
from engine.errors import AnswerError

# The transpose marker that the Unicode and LaTeX passes produce; `^T` stays ambiguous until the
# token pass, because `T` may also be a symbol (a sequence length).
TRANSPOSE_MARK = "⊤"

_GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ζ": "zeta",
    "η": "eta", "θ": "theta", "κ": "kappa", "λ": "lamda", "μ": "mu", "ν": "nu", "ξ": "xi",
    "π": "pi", "ρ": "rho", "σ": "sigma", "τ": "tau", "φ": "phi", "χ": "chi", "ψ": "psi",
    "ω": "omega", "Δ": "Delta", "Γ": "Gamma", "Θ": "Theta", "Φ": "Phi", "Ω": "Omega",
    "ϕ": "phi", "ϵ": "epsilon", "ϑ": "theta", "ϱ": "rho", "Λ": "Lamda", "Ψ": "Psi",
}  # fmt: skip
# LaTeX spells `lambda` in full, which is a Python keyword; sympy's own spelling avoids that.
_LATEX_NAMES = {name: name for name in _GREEK.values()} | {
    "infty": "inf",
    "partial": "∂",
    "approx": "≈",
    "to": "→",
    "in": "∈",
    "top": "⊤",
    "exp": "exp",
    "log": "log",
    "ln": "ln",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "lambda": "lamda",
    "varepsilon": "epsilon",
    "varphi": "phi",
    "vartheta": "theta",
    "varrho": "rho",
}
_SYMBOL_CHARS = {
    "−": "-", "–": "-", "—": "-", "×": "*", "·": "*", "⋅": "*", "∙": "*", "∗": "*", "÷": "/",
    "✕": "*", "✖": "*", "⨯": "*",
    "ᵀ": TRANSPOSE_MARK, "ᵗ": TRANSPOSE_MARK, "⊺": TRANSPOSE_MARK, "⁄": "/", "∕": "/", "∞": "inf",
}  # fmt: skip
SUBSCRIPTS = dict(zip("₀₁₂₃₄₅₆₇₈₉ₐₑₒₓₕₖₗₘₙₚₛₜᵢⱼᵣᵤᵥ", "0123456789aeoxhklmnpstijruv", strict=True))
_PLAIN_SUBSCRIPTS = str.maketrans(SUBSCRIPTS)
# Superscript letters are exponents too (`e⁻ˣ`, `xⁿ`); `ᵗ` and `ᵀ` are the transpose instead.
_SUPERSCRIPTS = dict(
    zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵘᵛʷˣʸᶻ", "0123456789-+abcdefghijklmnoprsuvwxyz", strict=True)
)

_LATEX_WRAPPERS = {"operatorname", "mathrm", "text", "textrm", "mathbf", "mathit", "boldsymbol"}
_LATEX_WRAPPERS |= {"mathbb", "mathcal", "mathsf", "textbf", "textit", "bm"}
_LATEX_SPACING = {",", ";", ":", "!", " ", "quad", "qquad"}
_LATEX_SIZING = {"left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr"}
_LATEX_TIMES = {"cdot", "times", "ast"}

_BRACED_SUBSCRIPT = re.compile(r"_\s*\{\s*([A-Za-z0-9]+)\s*(?:,\s*([A-Za-z0-9]+)\s*)?\}")
_BRACED_TRANSPOSE = re.compile(
    r"\^\s*\{\s*(?:\\top|\\intercal|\\mathsf\s*\{\s*T\s*\})\s*\}|\^\s*\\(?:top|intercal)"
)
_BRACED_T = re.compile(r"\^\s*\{\s*T\s*\}")
_LATEX_COMMAND = re.compile(r"\\([A-Za-z]+|.)", re.DOTALL)
_UNBRACED_ROOT = re.compile(r"\s*([A-Za-z](?:_[A-Za-z0-9]+)?|\d+(?:\.\d+)?)(?![A-Za-z0-9_{])")


# Maxima's (STACK's) names of the constants: %pi, %e, %i.
_PERCENT_CONSTANT = re.compile(r"%(pi|e|i)(?![A-Za-z0-9_])")
# `1.5x10^3`, `2 X 10**-3`: the letter x as the times sign of scientific notation.
_SCIENTIFIC_X = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*[xX]\s*(?=10\s*(?:\^|\*\*))")
# `25%` is the number 25/100 (a percent sign after anything else is left for the parser).
_PERCENTAGE = re.compile(r"((?<![\w.])(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*%")


# `$\\frac{a}{b}$`, `\\( ... \\)`: the delimiters of LaTeX maths around the whole answer.
_MATH_DELIMITERS = re.compile(r"^\s*(?:\$\$?|\\[(\[])(.*?)(?:\$\$?|\\[)\]])\s*$", re.DOTALL)
# `d₍k₎`, `T₍q₎`: a subscript in the subscript parentheses of Unicode, around plain letters.
_SUBSCRIPT_GROUP = re.compile(r"₍([^₍₎()]{1,12})₎")


# LaTeX's decimal comma `0{,}09`, its sizing of brackets `\left[ ... \right]` and its spaces
# `\,` `\ `: how a list or a number is typeset, not what it says.
_LATEX_DECIMAL_COMMA = re.compile(r"(?<=\d)\{,\}(?=\d)")
_LATEX_SIZING_OR_SPACE = re.compile(
    r"(?<!\\)\\(?:left|right|[bB]ig{1,2}[lr]?)(?![A-Za-z])\s*|(?<!\\)\\[,;:! ]"
)


def plain_latex_layout(text: str) -> str:
    """`\\left[0{,}09;\\ 0{,}24\right]` -> `[0.09; 0.24]`: LaTeX's layout of a list or number
    made plain; text without a backslash or `{,}` is returned unchanged."""
    if "\\" not in text and "{,}" not in text:
        return text
    text = _LATEX_DECIMAL_COMMA.sub(".", without_math_delimiters(text))
    return _LATEX_SIZING_OR_SPACE.sub(
        lambda m: "" if m.group().strip("\\ ")[:1].isalpha() else " ", text
    )


# `` `K.T` ``, `**d_k**`, a fenced block: the markdown a learner copies around an answer from notes
# or a chat. A pair of the same marks around the whole answer only says how it was set; `*`
# inside stays (`**` cannot end an expression, nor `*` start one). As markdown reads it, a span
# ends at the first closing run of its marks, so `` `d_k` or `d` `` is two spans, not one whose
# inside is "d_k` or `d". `__x__` is left alone: in Python it is a name.
MAX_MARKED = 4000
_MARKUP = re.compile(
    r"^\s*(?:```(?:[A-Za-z]+[ \t]*\n)?\n?(?P<block>.*?)\n?```"
    r"|(?P<mark>`+|\*{1,3})(?P<inside>(?:(?!(?P=mark)).)*?)(?P=mark))\s*$",
    re.DOTALL,
)


def without_markup(text: str) -> str:
    """The answer inside markdown code or emphasis marks around the whole of it (`` `K.T` ``,
    `**B**`, ```` ```python ... ``` ````); other text unchanged."""
    # The pattern backtracks over a run of marks: no longer text than a pasted function.
    while ("`" in text or "*" in text) and len(text) <= MAX_MARKED:
        wrapped = _MARKUP.fullmatch(text)
        if wrapped is None:
            return text
        inside = wrapped.group("block") if wrapped.group("block") is not None else wrapped["inside"]
        if not inside.strip() or inside == text:
            return text
        text = inside
    return text


def without_math_delimiters(text: str) -> str:
    """The maths inside `$...$`, `$$...$$`, `\\(...\\)` or `\\[...\\]`, or inside markdown marks
    (`without_markup`); other text unchanged."""
    text = without_markup(text)
    if "$" not in text and "\\" not in text:
        return text
    inside = _MATH_DELIMITERS.fullmatch(text)
    return inside.group(1) if inside and inside.group(1).strip() else text


def to_ascii(text: str) -> str:
    """Rewrite Unicode and LaTeX spellings; raises AnswerError for LaTeX it cannot read."""
    text = without_math_delimiters(text)
    if "{,}" in text:
        text = _LATEX_DECIMAL_COMMA.sub(".", text)
    if "10" in text:
        text = _SCIENTIFIC_X.sub(r"\1*", text)
    if "%" in text:
        text = _PERCENTAGE.sub(r"(\1/100)", _PERCENT_CONSTANT.sub(r" \1 ", text))
    if "₍" in text:
        text = _SUBSCRIPT_GROUP.sub(lambda m: "_" + m.group(1).translate(_PLAIN_SUBSCRIPTS), text)
    return _rewrite_latex(_rewrite_unicode(text))


def _rewrite_unicode(text: str) -> str:
    if text.isascii():  # no Greek, sub- or superscript, symbol or compatibility form to rewrite
        return text
    out: list[str] = []
    previous = ""  # "sub" or "sup" while inside a run of sub- or superscript characters
    for at, char in enumerate(text):
        following = text[at + 1] if at + 1 < len(text) else ""
        # `2πr` is 2·π·r, not the name `pir`; a subscript (`δ_ij`) stays attached.
        spaced = char in _GREEK and following.isascii() and following.isalnum()
        text_after = " " if spaced else ""
        if char in IGNORABLE_CHARS:
            continue
        if char in SUBSCRIPTS:
            out.append(SUBSCRIPTS[char] if previous == "sub" else "_" + SUBSCRIPTS[char])
            previous = "sub"
            continue
        if char in _SUPERSCRIPTS:
            # A run such as ⁻¹ is one exponent: open a group now, close it when the run ends.
            out.append(_SUPERSCRIPTS[char] if previous == "sup" else "^(" + _SUPERSCRIPTS[char])
            previous = "sup"
            continue
        if previous == "sup":
            out.append(")")
        previous = ""
        out.append(_GREEK.get(char) or _SYMBOL_CHARS.get(char) or _vulgar_fraction(char) or char)
        out.append(text_after)
    if previous == "sup":
        out.append(")")
    # Compatibility forms (full-width digits, ligatures) become their plain letters.
    return unicodedata.normalize("NFKC", "".join(out))


def _vulgar_fraction(char: str) -> str | None:
    """`½` as `(1/2)`, bracketed so that `d^½` is a square root and not (d^1)/2."""
    if unicodedata.category(char) != "No":
        return None
    compatible = unicodedata.normalize("NFKC", char)
    if "⁄" not in compatible:
        return None
    return "(" + compatible.replace("⁄", "/") + ")"


_CARET_TRANSPOSE = re.compile(r"\^\s*[⊤ᵀ⊺]|\^\s*\{\s*[⊤ᵀ⊺]\s*\}")


def _rewrite_latex(text: str) -> str:
    text = _CARET_TRANSPOSE.sub(TRANSPOSE_MARK, text)
    if "\\" not in text and "{" not in text and "_" not in text and "^" not in text:
        return text
    text = _BRACED_TRANSPOSE.sub(TRANSPOSE_MARK, text)
    text = _BRACED_T.sub("^T", text)
    text = _BRACED_SUBSCRIPT.sub(lambda m: "_" + m.group(1) + (m.group(2) or ""), text)
    return _rewrite_commands(text)


def _rewrite_commands(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "{":
            out.append("(")
        elif char == "}":
            out.append(")")
        elif char != "\\":
            out.append(char)
        else:
            match = _LATEX_COMMAND.match(text, i)
            if match is None:  # a lone backslash at the end
                raise AnswerError("could not read this: a `\\` must start a LaTeX command")
            command, i = match.group(1), match.end()
            if command in {"frac", "dfrac", "tfrac"}:
                numerator, i = _latex_argument(text, i, command)
                denominator, i = _latex_argument(text, i, command)
                out.append(f"(({_rewrite_commands(numerator)})/({_rewrite_commands(denominator)}))")
            elif command == "sqrt":
                if text[i:].lstrip().startswith("["):
                    raise AnswerError("could not read this: only square roots are supported")
                # `\sqrt d_k` and `\sqrt 512` mean the whole name or number, as `√d_k` does.
                whole = _UNBRACED_ROOT.match(text, i)
                if whole:
                    argument, i = whole.group(1), whole.end()
                else:
                    argument, i = _latex_argument(text, i, command)
                out.append(f"sqrt({_rewrite_commands(argument)})")
            elif command in _LATEX_WRAPPERS:
                argument, i = _latex_argument(text, i, command)
                out.append(_rewrite_commands(argument))
            elif command in _LATEX_SIZING:
                pass  # the delimiter that follows is kept as it is
            elif command in _LATEX_TIMES:
                out.append("*")
            elif command == "div":
                out.append("/")
            elif command in {"{", "}"}:
                out.append("(" if command == "{" else ")")
            elif command in _LATEX_SPACING:
                out.append(" ")
            elif command in _LATEX_NAMES or command in FUNCTION_NAMES:
                out.append(_LATEX_NAMES.get(command, command))
            else:
                raise AnswerError(
                    f"could not read this: the LaTeX command `\\{command}` is not supported"
                )
            continue
        i += 1
    return "".join(out)


def _latex_argument(text: str, i: int, command: str) -> tuple[str, int]:
    """Read `{...}` (or a single character, as in `\\frac12`) starting at `i`."""
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text) or text[i] == "}":
        raise AnswerError(f"could not read this: `\\{command}` needs its arguments in braces")
    if text[i] != "{":
        return text[i], i + 1
    j = matching_close(text, i, BRACES)
    if j is not None:
        return text[i + 1 : j], j + 1
    raise AnswerError(f"could not read this: a `{{` after `\\{command}` is never closed")
