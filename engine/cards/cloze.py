"""Cloze cards: a formula or a few lines of code with one piece blanked out, Anki style.

The item's `text` marks pieces as `{{c1::np.sqrt(d_k)}}` (or `{{c1::np.sqrt(d_k)::the scale}}`
with a hint shown in the blank). One item asks one cloze number, `ask` (by default the only
number in the text): those pieces are shown as a blank, every other piece is shown filled in.
A text with several blanks therefore becomes several items, one per piece, as in Anki, so that
each piece has its own review history instead of sharing one.

The blank is graded by `check`: `text` compares after normalisation (spaces, quote style and the
minus sign do not matter; `accept` lists other spellings), `expression` uses the expression
checker, so any equivalent formula counts. The answer shown afterwards is the filled line.
"""

from __future__ import annotations

import re
import textwrap
import unicodedata
from dataclasses import dataclass, replace
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, StringConstraints, model_validator

from engine.cards.base import Text, register_kind
from engine.cards.typed import SymbolName, TypedItem
from engine.errors import AnswerError, BankError
from engine.verdict import Verdict

_CLOZE = re.compile(r"\{\{c(\d+)::(.*?)(?:::(.*?))?\}\}", re.DOTALL)
BLANK = "[ ___ ]"
# A cloze text in NumPy code: its blank is judged by what it computes.
_CODE = re.compile(r"\bnp\.|\bdef |\breturn\b|\bnumpy\b")
# A piece typed as NumPy code, judged by what it computes even in a blank of a formula.
_CODE_PIECE = re.compile(r"\bnp\.|\bnumpy\.|\.sum\(|\baxis\s*=")
DEFAULT_INSTRUCTION = "Fill in the blank."


@dataclass(frozen=True)
class Blank:
    number: int
    answer: str
    hint: str | None
    start: int
    end: int


def find_blanks(text: str) -> list[Blank]:
    return [
        Blank(int(m.group(1)), m.group(2), m.group(3), m.start(), m.end())
        for m in _CLOZE.finditer(text)
    ]


def normalise_code(text: str) -> str:
    """The form two spellings of a piece of code are compared in: spaces dropped, the signs of
    the entry-by-entry product (`⊙`, `∘`, `*`) made one, and those of the matrix product (`@`,
    `·`, a bracket against a factor), braces around a subscript and Unicode
    subscripts written out (`v_{j}`, `vⱼ`), and a trailing full slice dropped (`V[j, :]` selects
    what `V[j]` does)."""
    text = _MATH_ALPHANUMERIC.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)
    text = _LATEX_BOLD.sub(r"\1", text)  # `\mathbf{1}`: the column of ones
    text = _LATEX_SIGNS.sub(lambda m: _LATEX_SIGN[m.group(1)], text)
    text = _SPOKEN_INFINITY.sub(lambda m: "-inf" if m.group(1) else "inf", text)
    text = _unicode_subscripts(text)
    text = text.replace("−", "-").replace('"', "'").replace("×", "*")
    text = text.replace("⊙", "*").replace("∘", "*").replace("·", "@").replace("⋅", "@")
    # The matrix product: `@`, the middle dot of maths, or a bracket written against what it
    # multiplies (`(G ⊙ A) 1`), which Python would not read, so nothing else is merged.
    text = re.sub(r"\s+", "", text).rstrip(";").replace(")@", ")")
    text = re.sub(r"_\{(\w+)\}", r"_\1", text)  # v_{j} is v_j
    return re.sub(r"(?:,:)+\]", "]", text)


# A piece typed in LaTeX or said in words: `(G \odot A)\mathbf{1}`, `-\infty`, `minus infinity`.
_LATEX_BOLD = re.compile(r"\\(?:mathbf|boldsymbol|bm|mathbb|vec)\s*\{\s*(\w+)\s*\}")
_LATEX_SIGN = {"odot": "⊙", "circ": "∘", "infty": "inf", "top": "ᵀ"}
_LATEX_SIGNS = re.compile(r"\\(odot|circ|infty|top)(?![A-Za-z])")
_SPOKEN_INFINITY = re.compile(r"(?:\b(minus|negative)\s+)?\binfinity\b", re.IGNORECASE)
# Bold, double-struck and full-width letters and digits (`𝟏`, `𝐀`, `Ａ`) are the plain ones.
_MATH_ALPHANUMERIC = re.compile("[\U0001d400-\U0001d7ff\uff01-\uff5e]")


def _unicode_subscripts(text: str) -> str:
    """A subscript typed in Unicode is the same subscript: `Vⱼ` is V_j, `sₖ` is s_k."""
    from engine.checking.reading.typography import SUBSCRIPTS

    if not any(char in SUBSCRIPTS for char in text):
        return text
    run = re.compile(f"[{''.join(SUBSCRIPTS)}]+")
    return run.sub(lambda m: "_" + "".join(SUBSCRIPTS[c] for c in m.group()), text)


# `True.`, `K.T.`: a full stop ending the answer as a sentence, not part of the code.
_FULL_STOP = re.compile(r"(?<=[\w)\]])\.\s*$")


def _without_remark(answer: str) -> str:
    """A piece without a remark in words after it, or the full stop of a sentence: `-1 (the
    last axis)` and `True.` are -1 and True."""
    from engine.checking.reading.statement import has_words, trailing_group

    remark = trailing_group(answer)
    answer = remark[0] if remark is not None and has_words(remark[1]) else answer
    return _FULL_STOP.sub("", answer) if not answer.rstrip().endswith("..") else answer


def _overlap(context: str, given: str) -> str:
    """The longest end of `context` (two characters or more, ending in `=`, `(` or `,`) that
    `given` starts with, leaving something after it; empty when there is none."""
    for size in range(min(len(context), len(given) - 1), 1, -1):
        piece = given[:size]
        if piece[-1] in "=(," and context.endswith(piece):
            return piece
    return ""


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def _filled(part: str) -> str:
    """A stretch of cloze text with every blank filled in, normalised."""
    return normalise_code(_CLOZE.sub(lambda m: m.group(2), part))


@register_kind
class ClozeItem(TypedItem):
    kind_name: ClassVar[str] = "cloze"

    kind: Literal["cloze"]
    text: Text
    ask: Annotated[int, Field(ge=1)] | None = None
    check: Literal["text", "expression"] = "text"
    accept: tuple[Annotated[str, StringConstraints(min_length=1, max_length=200)], ...] = ()
    # For `check: expression`, the domain of the symbols, as for expression items.
    positive: tuple[SymbolName, ...] = ()
    integer: tuple[SymbolName, ...] = ()
    noncommutative: tuple[SymbolName, ...] = ()
    # The prompt as the author wrote it; `prompt` is it followed by the text with the blank.
    instruction: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _keep_instruction(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("instruction") is None:
            data = {**data, "instruction": data.get("prompt") or DEFAULT_INSTRUCTION}
            data.setdefault("prompt", data["instruction"])
        return data

    @model_validator(mode="after")
    def _well_formed(self) -> ClozeItem:
        blanks = find_blanks(self.text)
        if not blanks:
            raise ValueError("a cloze text needs at least one blank such as {{c1::answer}}")
        rest = _CLOZE.sub("", self.text)
        if "{{" in rest or "}}" in rest:
            raise ValueError("the text has a '{{' or '}}' that is not part of a {{cN::...}} blank")
        if any(not b.answer.strip() for b in blanks):
            raise ValueError("a blank has no answer: write {{c1::answer}}")
        numbers = sorted({b.number for b in blanks})
        if self.ask is None and len(numbers) > 1:
            raise ValueError(f"the text has blanks {numbers}: say which one to ask with `ask`")
        asked = self.ask if self.ask is not None else numbers[0]
        if asked not in numbers:
            raise ValueError(f"ask: {asked} is not a blank of the text (it has {numbers})")
        if len({b.answer for b in blanks if b.number == asked}) > 1:
            raise ValueError(f"the blanks c{asked} have different answers; one card asks one piece")
        object.__setattr__(self, "ask", asked)
        shown = textwrap.indent(self._render(blank=True), "    ")
        object.__setattr__(self, "prompt", f"{(self.instruction or '').rstrip()}\n\n{shown}")
        return self

    # -- the text, blanked or filled ---------------------------------------------------------
    def asked(self) -> Blank:
        return next(b for b in find_blanks(self.text) if b.number == self.ask)

    def _render(self, *, blank: bool) -> str:
        def piece(m: re.Match[str]) -> str:
            if int(m.group(1)) == self.ask and blank:
                return f"[ ___ ({m.group(3)}) ]" if m.group(3) else BLANK
            return m.group(2)

        return _CLOZE.sub(piece, self.text).strip("\n")

    def answer_text(self) -> str:
        """The line (or lines) with the blank, filled in."""
        marked = _CLOZE.sub(
            lambda m: "\0" + m.group(2) if int(m.group(1)) == self.ask else m.group(2), self.text
        )
        lines = [line for line in marked.strip("\n").splitlines() if "\0" in line]
        return textwrap.dedent("\n".join(lines)).replace("\0", "").strip()

    # -- grading ---------------------------------------------------------------------------------
    def grade_one(self, answer: str) -> Verdict:
        if self.check == "expression":
            return self._grade_expression(answer)
        from engine.checking.reading.safe_ast import check_size

        try:
            check_size(answer)
        except AnswerError as error:
            return Verdict(correct=False, valid=False, feedback=str(error))
        answer = _without_remark(answer)
        plain = normalise_code(answer)
        given = self._piece_of(plain)
        if not given:
            return Verdict(
                correct=False, valid=False, feedback="could not read this: type the missing piece"
            )
        right = {normalise_code(t) for t in (self.asked().answer, *self.accept)}
        if given in right:
            return Verdict(correct=True, interpreted_as=answer.strip(), feedback="correct", score=1)
        for mistake in self.mistakes:
            if normalise_code(mistake.answer) == given:
                return Verdict(
                    correct=False, interpreted_as=answer.strip(), feedback=mistake.message
                )
        if _CODE.search(self.text) or _CODE_PIECE.search(answer):
            # A learner who typed the whole line is judged on the piece it holds.
            computed = self._grade_code(answer if given == plain else given)
            if computed is not None:
                return computed
        return Verdict(
            correct=False,
            interpreted_as=answer.strip(),
            feedback=f"the missing piece is {self.asked().answer}",
        )

    def _grade_code(self, answer: str) -> Verdict | None:
        """Judge a blank in NumPy code by what it computes (see
        `engine.checking.equivalence.code_blank`); None when the card's code is outside what that
        interpreter reads."""
        from engine.checking.equivalence.code_blank import judge_piece

        marker = "__attnquiz_blank__"
        code = _CLOZE.sub(
            lambda m: marker if int(m.group(1)) == self.ask else m.group(2), self.text
        )
        reference = self.asked().answer
        # Every accepted spelling computes a right value: `-1e9` for `-np.inf` in a mask, so
        # `-10**9` is right too, and a NumPy spelling answers a blank in a formula.
        references = (reference, *self.accept)
        shown = answer.strip()
        try:
            result = judge_piece(code, references, answer, marker)
            if result is None:  # the line is not a program: compare the pieces on their own
                result = judge_piece(marker, references, answer, marker)
        except AnswerError as error:
            return Verdict(correct=False, valid=False, feedback=str(error))
        if result is None:
            return None
        if result.same:
            return Verdict(correct=True, interpreted_as=shown, feedback="correct", score=1)
        for mistake in self.mistakes:
            try:
                same = normalise_code(mistake.answer) == normalise_code(answer) or bool(
                    (m := judge_piece(code, (mistake.answer,), answer, marker)) and m.same
                )
            except AnswerError:
                same = False
            if same:
                return Verdict(correct=False, interpreted_as=shown, feedback=mistake.message)
        feedback = f"it does not compute what the missing piece does ({reference})"
        if result.note:
            feedback = f"{result.note}; {feedback}"
        return Verdict(correct=False, interpreted_as=shown, feedback=feedback)

    def _piece_of(self, given: str) -> str:
        """The piece a normalised answer gives: a learner who types the whole filled line
        (`return A @ V` for the blank of `return [ ___ ]`) gives the piece with its context."""
        blank = self.asked()
        start = self.text.rfind("\n", 0, blank.start) + 1
        end = self.text.find("\n", blank.end)
        before = _filled(self.text[start : blank.start])
        after = _filled(self.text[blank.end : end if end >= 0 else None])
        context = (before or after) and len(given) > len(before) + len(after)
        if context and given.startswith(before) and given.endswith(after):
            return given[len(before) : len(given) - len(after)]
        # The keyword or bracket next to the blank typed again: `axis=-1` for `axis=[ ___ ]`.
        head = _overlap(before, given)
        tail = _overlap(after[::-1], given[len(head) :][::-1])
        piece = given[len(head) : len(given) - len(tail)]
        return piece if _balanced(piece) else given

    def _grade_expression(self, answer: str) -> Verdict:
        from engine.checking import check_expression

        verdict: Verdict | None = None
        for expected in (self.asked().answer, *self.accept):
            verdict = check_expression(
                answer,
                expected,
                aliases=self.symbols,
                positive=self.positive,
                integer=self.integer,
                noncommutative=self.noncommutative,
                mistakes=[(m.answer, m.message) for m in self.mistakes],
                context=(self.answer_text(),),
            )
            if verdict.correct or not verdict.valid:
                return verdict
        assert verdict is not None
        if not verdict.feedback:
            verdict = replace(verdict, feedback=f"the missing piece is {self.asked().answer}")
        return verdict

    def check_bank_in_process(self) -> list[str]:
        problems = []
        for text in (self.asked().answer, *self.accept):
            try:
                if not self.grade_in_process(text).correct:
                    problems.append(f"the blank's answer {text!r} does not check as correct")
            except (AnswerError, BankError, ValueError) as exc:
                problems.append(f"the blank's answer {text!r} cannot be read: {exc}")
        for m in self.mistakes:
            try:
                if self.grade_in_process(m.answer).correct:
                    problems.append(f"the mistake {m.answer!r} is accepted as correct")
            except (AnswerError, BankError, ValueError) as exc:
                problems.append(f"the mistake {m.answer!r} cannot be read: {exc}")
        return problems
