"""Read and grade the shape of an array: `(T_q, T_k)`, `[Tq, Tk]`, `T_q x T_k`, `3×2`.

A shape is a tuple of dimension names, each canonicalised with the question's aliases so that
`Tq`, `n_q` and `T_q` compare equal. Grading gives partial credit per position and says which
dimension is wrong, or that the two dimensions are swapped, the classic slip with Q K^T.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

from engine.checking.reading.notation import Token, names_used, normalise, tokenise
from engine.checking.reading.safe_ast import Vocabulary, check_size, parse_tree
from engine.checking.reading.statement import has_words, split_chain, trailing_group
from engine.checking.reading.to_sympy import build
from engine.errors import AnswerError, BankError
from engine.verdict import Verdict

MAX_DIMENSIONS = 8
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
_PLAIN_DIMENSION = re.compile(r"[A-Za-z][A-Za-z0-9_]*|\d+")
# `3x2` arrives as the number 3 and the name `x2`; `4x100x200` as 4 and `x100x200`.
_TIMES_NUMBER = re.compile(r"(?:x\d+)+")


def parse_shape(
    text: str,
    *,
    aliases: Mapping[str, Sequence[str]] | None = None,
    symbols: Collection[str] = (),
) -> tuple[str, ...]:
    """The dimensions of a typed shape, each as its canonical name or number. `symbols` are
    dimension names known beforehand (the expected shape's): `gw` run together is g·w.

    Raises AnswerError when the text is not a shape.
    """
    check_size(text)
    try:
        text = _shape_part(text, aliases or {})
        if ";" in text and "," not in text:  # `(37; 512)`: semicolons separate, as commas do
            text = text.replace(";", ",")
        tokens = [t for t in tokenise(text) if t.kind != "space"]
        if len(tokens) >= 2 and tokens[0].kind == "open" and _closes_at_end(tokens):
            tokens = tokens[1:-1]
        groups = _split(tokens)
        if len(groups) > MAX_DIMENSIONS:
            raise AnswerError(
                f"could not read this: a shape has at most {MAX_DIMENSIONS} dimensions"
            )
        return tuple(_dimension(group, aliases or {}, symbols) for group in groups)
    except AnswerError:
        raise
    except (Exception, RecursionError):  # a last line of defence for the learner
        raise AnswerError("could not read this: it is not a shape such as (T_q, d_k)") from None


_REAL_SPACE = re.compile(r"^\s*(?:ℝ|R|\\mathbb\s*\{\s*R\s*\}|\\mathbb\s+R|\\R)\s*\^\s*")
# Each run of spaces has one place to go (the second part starts at a character that is not a
# space): with two optional runs side by side, `a rows` and 400 spaces took a minute.
_ROWS_COLUMNS = re.compile(
    r"^\s*[(\[]?\s*(.+?)\s+rows?\s*(?:(?:,|and|×|x|by)\s*)?(\S.*?)\s+col(?:umn)?s?\s*[)\]]?\s*$",
    re.IGNORECASE,
)
# `T_q rows of width d_v`: the rows, then how wide each is.
_ROWS_OF_WIDTH = re.compile(r"^\s*(\S+)\s+rows?\s+of\s+(?:width|length|size)\s+(\S+)\s*$", re.I)
# `a 5 x 32 matrix`: the article belongs to the noun, not to the shape.
_ARTICLE_NOUN = re.compile(r"^\s*an?\s+(?=\d)(.+?)\s+(?:matrix|array|tensor)\s*$", re.IGNORECASE)
# `[12][300]`: a shape as C declares an array, one dimension in each pair of brackets.
_C_ARRAY = re.compile(r"^\s*(?:\[\s*[^\[\],;]+?\s*\]\s*){2,8}$")
# `(T_q, T_k): one score per query-key pair`: a shape, then a remark in words (no other shape).
_SHAPE_THEN_REMARK = re.compile(r"^\s*([(\[][^()\[\]]*[)\]])\s*[-—–,;:]\s*([^()\[\]\d]+)$")
# `torch.Size([T_q, T_k])`: how PyTorch prints a shape.
_TORCH_SIZE = re.compile(r"^\s*(?:torch\s*\.\s*)?Size\s*\(\s*(\[[^()\[\]]*\])\s*\)\s*$")
_BRACKETS_THEN_WORDS = re.compile(r"^\s*([(\[][^()\[\]]*[)\]])\s*[-—–,;:]?\s*(.+)$")
_TRAILING_BRACKETS = re.compile(r"^(.*?)[\s,:]*([(\[].*[)\]])\s*$", re.DOTALL)


def _shape_part(text: str, aliases: Mapping[str, Sequence[str]]) -> str:
    """The shape in an answer that says more: `S: (T_q, T_k)`, `(T_q, d_v) = (5, 32)`,
    `ℝ^{T_q × T_k}`, `QKᵀ ∈ ℝ^(T_q×T_k)`, `same shape as Q, (T_q, d_k)`, `T_q rows and T_k
    columns`."""
    said = _SHAPE_THEN_REMARK.match(text)
    if said and has_words(said.group(2)):
        return said.group(1)
    if _C_ARRAY.match(text):
        return "(" + ", ".join(re.findall(r"\[\s*([^\[\]]+?)\s*\]", text)) + ")"
    text = _ARTICLE_NOUN.sub(r"\1", text)
    text = split_chain(text).answer or text
    text = _TORCH_SIZE.sub(r"\1", text)
    text = re.sub(r"\s+(?:matrix|array|tensor|matrices)\s*$", "", text, flags=re.IGNORECASE)
    text = re.sub(r"\s*-\s*by\s*-\s*", " by ", text)
    remark = _BRACKETS_THEN_WORDS.match(text)
    if remark and has_words(remark.group(2)):
        return remark.group(1)  # `(T_q, d_v) — same rows as Q`
    rows = _ROWS_COLUMNS.match(text) or _ROWS_OF_WIDTH.match(text)
    if rows:
        return f"({rows.group(1)}, {rows.group(2)})"
    real = _REAL_SPACE.match(text)
    if real:
        rest = text[real.end() :].strip()
        if rest[:1] in "({" and rest[-1:] in ")}":
            rest = rest[1:-1]
        return f"({rest})"
    prose = _TRAILING_BRACKETS.match(text)
    if prose and prose.group(1).strip():
        known = frozenset(aliases) | {n for names in aliases.values() for n in names}
        if has_words(prose.group(1), known | _DIMENSION_WORDS):
            return prose.group(2)
        if has_words(prose.group(2), known | _DIMENSION_WORDS):
            return prose.group(1)  # `T_q × T_k (queries × keys)`: the shape, then a remark
    return text


_DIMENSION_WORDS = frozenset({"T_q", "T_k", "d_k", "d_v", "Tq", "Tk", "dk", "dv", "heads", "batch"})


def _closes_at_end(tokens: list[Token]) -> bool:
    """Whether the first bracket is closed by the last token (so `(a)(b)` is not stripped)."""
    depth = 0
    for i, token in enumerate(tokens):
        depth += {"open": 1, "close": -1}.get(token.kind, 0)
        if depth == 0:
            return i == len(tokens) - 1
    return False


def _split(tokens: list[Token]) -> list[list[Token]]:
    """Split at top-level commas, or else at `x`, `×`, `*` and `by` between dimensions."""
    expanded: list[Token] = []
    for token in tokens:
        match = _TIMES_NUMBER.fullmatch(token.text)
        if token.kind == "name" and match and expanded and expanded[-1].kind == "number":
            for number in re.findall(r"\d+", token.text):
                expanded.extend([Token("name", "x"), Token("number", number)])
        else:
            expanded.append(token)
    top_level = _top_level(expanded)
    if any(expanded[i].kind == "comma" for i in top_level):
        separators = {i for i in top_level if expanded[i].kind == "comma"}
    else:
        separators = {i for i in top_level if expanded[i].text in {"x", "by", "*"}}
    if not separators:
        # `(5 32)`: two numbers side by side are two dimensions; nobody writes 160 as `5 32`.
        numbers = [i for i in top_level if expanded[i].kind == "number"]
        if len(numbers) == len(top_level) > 1:
            expanded = [token for i in numbers for token in (Token("comma", ","), expanded[i])]
            expanded.pop(0)
            separators = {i for i, token in enumerate(expanded) if token.kind == "comma"}
    ends_open = bool(separators) and max(separators) == len(expanded) - 1
    if ends_open and expanded[-1].kind != "comma":  # `100 ×`: its last factor missing
        raise AnswerError(
            f"could not read this: the shape ends with `{expanded[-1].text}`; "
            "a dimension is missing"
        )
    groups: list[list[Token]] = [[]]
    for i, token in enumerate(expanded):
        if i in separators:
            groups.append([])
        else:
            groups[-1].append(token)
    if len(groups) > 1 and not groups[-1]:
        groups.pop()  # `(T_q,)` is a one-dimensional shape, as in Python
    return groups


def _top_level(tokens: list[Token]) -> list[int]:
    depth, positions = 0, []
    for i, token in enumerate(tokens):
        if token.kind == "open":
            depth += 1
        elif token.kind == "close":
            depth -= 1
        elif depth == 0:
            positions.append(i)
    return positions


def _dimension(
    tokens: list[Token], aliases: Mapping[str, Sequence[str]], symbols: Collection[str] = ()
) -> str:
    if not tokens:
        raise AnswerError("could not read this: a dimension is missing between separators")
    text = " ".join(token.text for token in tokens)
    declared = set(aliases) | set(symbols)
    known = declared | names_used(text, symbols=declared, aliases=aliases)
    plain = normalise(text, symbols=known, aliases=aliases).replace(" ", "")
    if _PLAIN_DIMENSION.fullmatch(plain):
        return str(int(plain)) if plain.isdigit() else plain
    # A computed dimension such as `2*d_k` or `d_k/h`: read it safely, print it canonically.
    vocabulary = Vocabulary(symbols=frozenset(known))
    expr = build(parse_tree(plain, vocabulary), vocabulary)
    return str(expr).replace(" ", "")


# `Q has shape (T_q, d_k)`, `V of shape (T_k, d_v)`, `K is (512, 64)`, `K (B, T_k, d_k)`: the
# shapes a question states, of tensors named with a capital.
_STATED_SHAPE = re.compile(
    r"(?<![\w.])([A-Z][A-Za-z0-9_]*)\s+(?:(?:has|of|with)\s+(?:the\s+)?shape\s+|is\s+|are\s+)?"
    r"([(\[][^()\[\]]*[)\]])"
)
# `same shape as V`, `the same as Q`, `V.shape`, `V's shape`: an answer that names a tensor.
_SHAPE_OF = re.compile(
    r"\s*(?:(?:the\s+)?same(?:\s+shape)?\s+as|(?:the\s+)?shape\s+of|like)\s+([A-Za-z]\w*)"
    r"(?:'s(?:\s+shape)?)?\s*\.?\s*|\s*([A-Za-z]\w*)(?:\.shape|'s\s+shape)\s*",
    re.IGNORECASE,
)


# `Q.shape[0]`, `V.shape[-1]`: a dimension named as NumPy indexes a tensor's shape.
_SHAPE_INDEX = re.compile(r"(?<![\w.])([A-Za-z]\w*)\s*\.\s*shape\s*\[\s*(-?\d)\s*\]")
# `same as Q, (T_q, d_k)`: the tensor the shape is that of, then the shape.
_SAME_AS_THEN_SHAPE = re.compile(
    r"^\s*(?:the\s+)?same(?:\s+shape)?\s+as\s+[A-Za-z]\w*\s*[,:;]\s*(?=\S)", re.IGNORECASE
)


def _named_dimensions(answer: str, question: str) -> str:
    """`(Q.shape[0], K.shape[0])` -> `(T_q, T_k)`: each indexed dimension of a tensor as the
    question's shape of that tensor gives it; the answer unchanged where it names none.
    Raises AnswerError when the question does not give that tensor's shape or that axis."""
    answer = _SAME_AS_THEN_SHAPE.sub("", answer, count=1)
    if "shape" not in answer:
        return answer
    shapes = stated_shapes(question)

    def dimension(match: re.Match[str]) -> str:
        name, axis = match.group(1), int(match.group(2))
        if name not in shapes:
            raise AnswerError(
                f"could not read this: the question does not give the shape of {name}"
            )
        dims = [d.strip() for d in shapes[name].strip("()[] ").split(",")]
        if not -len(dims) <= axis < len(dims):
            raise AnswerError(f"could not read this: {name} has {len(dims)} axes, not {axis + 1}")
        return dims[axis]

    return _SHAPE_INDEX.sub(dimension, answer)


def stated_shapes(question: str) -> dict[str, str]:
    """The shape each tensor has in the question's text, by the tensor's name."""
    return {m.group(1): m.group(2) for m in _STATED_SHAPE.finditer(question)}


def _named_shape(answer: str, question: str) -> str:
    """`same shape as V` -> the shape the question gives V; the answer unchanged otherwise.
    Raises AnswerError when the question does not give the named tensor's shape."""
    match = _SHAPE_OF.fullmatch(answer)
    if match is None:
        return answer
    name = match.group(1) or match.group(2)
    shapes = stated_shapes(question)
    other_case = [n for n in shapes if n.casefold() == name.casefold()]
    if name not in shapes and len(other_case) == 1:
        name = other_case[0]  # `same as v`, where the question has only V
    if name not in shapes:
        raise AnswerError(f"could not read this: the question does not give the shape of {name}")
    return shapes[name]


def check_shape(
    answer: str,
    expected: str,
    *,
    aliases: Mapping[str, Sequence[str]] | None = None,
    question: str = "",
) -> Verdict:
    """Grade a typed shape; the score is the fraction of dimensions in the right place.
    `question` is the question's text: an answer such as `same shape as V` takes the shape it
    gives V.

    Raises BankError when `expected` is not a shape.
    """
    try:
        target = parse_shape(expected, aliases=aliases)
    except AnswerError as error:
        raise BankError([f"the shape `{expected}` cannot be read: {error}"]) from None
    remark = trailing_group(answer)  # `6 by 16 (same as Q)`: a remark in words after it
    if remark is not None and has_words(remark[1]):
        answer = remark[0]
    try:
        given = parse_shape(
            _named_shape(_named_dimensions(answer, question), question),
            aliases=aliases,
            symbols=frozenset(re.findall(r"[A-Za-z][A-Za-z0-9_]*", expected)),
        )
    except AnswerError as error:
        return Verdict(correct=False, valid=False, feedback=str(error))
    given = _in_the_question_s_case(given, target)
    shown = "(" + ", ".join(given) + ("," if len(given) == 1 else "") + ")"
    if given == target:
        return Verdict(correct=True, interpreted_as=shown, feedback="correct", score=1.0)
    if len(given) != len(target):
        feedback = f"the shape has {len(target)} dimensions, not {len(given)}"
        return Verdict(correct=False, interpreted_as=shown, feedback=feedback, score=0.0)
    right = [g == t for g, t in zip(given, target, strict=True)]
    score = sum(right) / len(target)
    if sorted(given) == sorted(target):
        swapped = "swapped" if len(target) == 2 else "in the wrong order"
        feedback = f"you have the dimensions {swapped}"
        return Verdict(correct=False, interpreted_as=shown, feedback=feedback, score=score)
    return Verdict(
        correct=False, interpreted_as=shown, feedback=_per_dimension(given, right), score=score
    )


def _in_the_question_s_case(given: tuple[str, ...], target: tuple[str, ...]) -> tuple[str, ...]:
    """`(P, S)` for `(p, s)`: a dimension name typed in another case is the question's name,
    when the question has no name of its own in that spelling and only one it could mean."""
    named = set(target)

    def fold(dim: str) -> str:
        if dim in named:
            return dim
        found = {t for t in named if t.casefold() == dim.casefold()}
        return found.pop() if len(found) == 1 else dim

    return tuple(fold(dim) for dim in given)


def _per_dimension(given: tuple[str, ...], right: list[bool]) -> str:
    ordinals = _ORDINALS[: len(given)]
    good = [name for name, ok in zip(ordinals, right, strict=True) if ok]
    parts = []
    if good:
        verb = "is" if len(good) == 1 else "are"
        parts.append(f"the {_join(good)} dimension{'s' if len(good) > 1 else ''} {verb} right")
    parts.extend(
        f"the {ordinal} should not be {dim}"
        for ordinal, dim, ok in zip(ordinals, given, right, strict=True)
        if not ok
    )
    return "; ".join(parts)


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
