"""Find the function to check in a submitted file, by reading it, never by running it."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from attention_ref.bounded_read import read_at_most

Target = Literal["attention", "softmax"]

ATTENTION_NAMES = (
    "attention",
    "scaled_dot_product_attention",
    "single_head_attention",
    "scaled_dot_product",
    "sdpa",
)
SOFTMAX_NAMES = ("softmax_stable", "stable_softmax", "softmax")
MAX_SOURCE_BYTES = 1_000_000


class SubmissionError(Exception):
    """The file cannot be checked: unreadable, not Python, or no function to check."""

    def __init__(self, verdict: Literal["error", "not_found"], message: str) -> None:
        super().__init__(message)
        self.verdict = verdict


@dataclass(frozen=True)
class Found:
    name: str
    target: Target
    parameters: tuple[str, ...]
    line: int

    @property
    def takes_mask(self) -> bool:
        return "mask" in self.parameters


def find_function(path: Path, name: str | None = None) -> Found:
    """`name` if given, else the first known name, else the file's one public function."""
    try:
        raw = read_at_most(path, MAX_SOURCE_BYTES)
    except OSError as exc:
        raise SubmissionError("error", f"cannot read {path}: {exc.strerror}") from exc
    if raw is None:
        raise SubmissionError("error", f"{path} is larger than 1 MB; submit the function alone")
    try:
        tree = ast.parse(raw, filename=str(path))
    except SyntaxError as exc:
        raise SubmissionError("error", f"SyntaxError: {exc.msg} (line {exc.lineno})") from exc
    except (ValueError, RecursionError, MemoryError) as exc:
        raise SubmissionError("error", f"not a readable Python file: {exc}") from exc
    functions = {
        node.name: node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    if name is not None:
        node = functions.get(name)
        if node is None:
            known = ", ".join(sorted(functions)) or "none"
            raise SubmissionError(
                "not_found", f"no function {name!r} in {path} (functions: {known})"
            )
        return _found(node)
    for known in (*ATTENTION_NAMES, *SOFTMAX_NAMES):
        if known in functions:
            return _found(functions[known])
    public = [f for n, f in functions.items() if not n.startswith("_")]
    if len(public) == 1:
        return _found(public[0])
    if not public:
        raise SubmissionError("not_found", f"{path} defines no function to check")
    names = ", ".join(sorted(f.name for f in public))
    raise SubmissionError(
        "not_found", f"{path} defines several functions ({names}); say which with --func NAME"
    )


def _found(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Found:
    args = node.args
    params = tuple(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))
    required = len(args.posonlyargs) + len(args.args) - len(args.defaults)
    if node.name in SOFTMAX_NAMES:
        target: Target = "softmax"
    elif node.name in ATTENTION_NAMES:
        target = "attention"
    else:
        target = "softmax" if required <= 1 else "attention"
    return Found(node.name, target, params, node.lineno)
