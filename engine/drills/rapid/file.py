"""The file of a rapid-fire drill, `drills/<set>-rapid.yaml`: shape questions from templates.

Each template names its dimension variables (with the range numbers are drawn from), the shapes
of its tensors in those variables, a prompt with `{Q}` (a tensor's shape) or `{a}` (a dimension)
placeholders, the expression whose shape is asked, and the stated answer. Loading checks that the
answer is the shape the expression has (`engine.drills.rapid.shapes`), so a template can only
state what follows; every problem is one `PATH:LINE: message`.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import (
    Field,
    StringConstraints,
)

from engine.bank.file_header import FileHeader, StrictModel
from engine.bank.yaml_source import YamlDocument
from engine.cards.base import Text
from engine.drills.clocked.file import ClockedFile, loaded
from engine.drills.rapid.shapes import (
    Shape,
    ShapeAlgebraError,
    derive_shape,
    parse_shape_spec,
    shape_text,
)

Name = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$")]
Variable = Annotated[str, StringConstraints(pattern=r"^[A-Za-z][A-Za-z0-9_]{0,15}$")]
DimText = Annotated[str, StringConstraints(min_length=1, max_length=60)]
Expression = Annotated[str, StringConstraints(min_length=1, max_length=300)]


class ShapeMistake(StrictModel):
    """A classic wrong shape (in the template's variables) and what to tell the learner."""

    answer: tuple[DimText, ...] = Field(min_length=1)
    message: Text


class RapidTemplate(StrictModel):
    id: Name
    # Each variable's range when the question is drawn with numbers: [lowest, highest].
    dims: dict[Variable, tuple[int, int]] = Field(min_length=1)
    tensors: dict[Variable, tuple[DimText, ...]] = Field(min_length=1)
    prompt: Text
    ask: Expression
    answer: tuple[DimText, ...] = Field(min_length=1)
    mistakes: tuple[ShapeMistake, ...] = ()
    # Equations `left = right` between expressions whose shapes must agree, e.g. that the
    # output a prompt shows is what the tensors give.
    holds: tuple[Expression, ...] = ()
    explanation: Text | None = None


class RapidSection(StrictModel):
    name: Name = "rapid"
    questions: int = Field(default=12, ge=1, le=50)
    limit_seconds: int = Field(default=90, ge=10, le=3600)
    # The letters a question may use for its dimensions; numbers instead for a `numbers` share.
    names: tuple[Variable, ...] = Field(min_length=2)
    numbers: float = Field(default=0.5, ge=0.0, le=1.0)
    templates: tuple[RapidTemplate, ...] = Field(min_length=1)


class RapidDrillFile(FileHeader):
    rapid: RapidSection


@dataclass(frozen=True)
class RapidDrill:
    """A loaded rapid-fire drill whose every template states the shape its expression has."""

    set_name: str
    title: str
    section: RapidSection
    source: str
    lines: tuple[int, ...] = ()  # the line of each template, for lint's messages
    names_line: int = 1

    @property
    def name(self) -> str:
        return self.section.name


RAPID_FILE = ClockedFile("rapid-drill", RapidDrillFile)


def rapid_drill_file(set_name: str, store: Path) -> tuple[Path, str] | None:
    """`<store>/drills/<set>-rapid.yaml` (the learner's own) before the built-in one."""
    return RAPID_FILE.find(set_name, store)


def read_rapid_drill(
    path: Path, shown: str, set_name: str | None
) -> tuple[RapidDrill | None, list[str]]:
    """The drill and every problem of its file (schema, set name, and each template's algebra)."""

    def build(doc: YamlDocument, parsed: RapidDrillFile) -> RapidDrill:
        section = parsed.rapid
        lines = tuple(doc.line_of(("rapid", "templates", i)) for i in range(len(section.templates)))
        seen: set[str] = set()
        for line, template in zip(lines, section.templates, strict=True):
            if template.id in seen:
                doc.problem(line, f"duplicate template id {template.id!r}")
            seen.add(template.id)
            for problem in template_problems(template, section.names):
                doc.problem(line, f"template {template.id!r}: {problem}")
        names_line = doc.line_of(("rapid", "names"))
        return RapidDrill(str(parsed.set), parsed.title, section, shown, lines, names_line)

    return RAPID_FILE.read(path, shown, set_name, build)


def load_rapid_drill(path: Path, shown: str, set_name: str) -> RapidDrill:
    """The drill of `set_name`; BankError listing every problem of the file."""
    return loaded(read_rapid_drill(path, shown, set_name))


def tensor_shapes(template: RapidTemplate) -> dict[str, Shape]:
    return {name: parse_shape_spec(dims) for name, dims in template.tensors.items()}


def template_problems(template: RapidTemplate, names: tuple[str, ...]) -> list[str]:
    """What is wrong with a template: unknown variables or placeholders, a stated answer that is
    not the shape of `ask`, a `holds` that does not hold, a mistake equal to the answer."""
    variables = set(template.dims)
    problems = [
        f"{var}: the range {low}..{high} needs 1 <= lowest < highest"
        for var, (low, high) in template.dims.items()
        if not 1 <= low < high
    ]
    if len(names) < len(variables):
        problems.append(f"it has {len(variables)} dimensions but the drill names only {len(names)}")
    clash = sorted((variables | set(names)) & set(template.tensors))
    if clash:
        problems.append(f"{', '.join(clash)} name both a tensor and a dimension")
    try:
        tensors = tensor_shapes(template)
        answer = parse_shape_spec(template.answer)
        mistakes = [parse_shape_spec(m.answer) for m in template.mistakes]
    except ShapeAlgebraError as exc:
        return [*problems, str(exc)]
    used = {n for shape in (*tensors.values(), answer, *mistakes) for d in shape for n in d.names}
    if used - variables:
        problems.append(f"{', '.join(sorted(used - variables))} not among its dims")
    texts = {"the prompt": template.prompt, "the explanation": template.explanation or ""}
    texts.update({f"mistake {i + 1}'s message": m.message for i, m in enumerate(template.mistakes)})
    for what, text in texts.items():
        try:
            fields = {f for _, f, _, _ in string.Formatter().parse(text) if f is not None}
        except ValueError as exc:
            problems.append(f"{what}: {exc} (write {{{{ and }}}} for braces)")
            continue
        if fields - variables - set(tensors):
            unknown = ", ".join(sorted(fields - variables - set(tensors)))
            problems.append(f"{what} has placeholders {unknown} that are no tensor or dimension")
    try:
        derived = derive_shape(template.ask, tensors, variables)
        if derived != answer:
            problems.append(
                f"the answer {shape_text(answer)} is not the shape of {template.ask}, "
                f"which is {shape_text(derived)}"
            )
        for equation in template.holds:
            problems.extend(_holds(equation, tensors, variables))
    except ShapeAlgebraError as exc:
        problems.append(str(exc))
    problems.extend(
        f"the mistake {shape_text(m)} is the answer itself" for m in mistakes if m == answer
    )
    return problems


def _holds(equation: str, tensors: dict[str, Shape], variables: set[str]) -> list[str]:
    if equation.count("=") != 1:
        return [f"holds: {equation!r} is not one equation `left = right`"]
    left, right = (derive_shape(side, tensors, variables) for side in equation.split("="))
    if left != right:
        return [f"holds: {equation} fails, {shape_text(left)} against {shape_text(right)}"]
    return []
