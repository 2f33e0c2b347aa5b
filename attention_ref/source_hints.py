"""What reading a submission tells before running it: the rank it is written for, and
PyTorch habits that are silent mistakes in NumPy.

The rank only orders the forms the grader tries (2-D first, or batched first); running the code
decides. `K.transpose(-2, -1)` is NumPy's permutation of two axes: a no-op on a 2-D array and an
error on a 3-D one, so code written with it never transposes K (`missing_transpose`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class Hints:
    rank: int | None = None  # 2, 3 or 4 when the code shows it; None: any or unknown
    any_rank: bool = False  # swapaxes(-1, -2), einsum with "...", [..., ] indexing
    torch_transpose: bool = False  # X.transpose(-2, -1) or X.transpose(-1, -2)
    uses_numba: bool = False  # its first call of each kind compiles


def _ints(nodes: list[ast.expr]) -> list[int] | None:
    values = []
    for node in nodes:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = node.operand
            if isinstance(inner, ast.Constant) and isinstance(inner.value, int):
                values.append(-inner.value)
                continue
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            values.append(node.value)
            continue
        return None
    return values


def _einsum_rank(spec: str) -> tuple[int | None, bool]:
    if "..." in spec:
        return None, True
    first = spec.split("->")[0].split(",")[0].strip()
    return (len(first) if first.isalpha() else None), False


def read_hints(tree: ast.AST) -> Hints:
    ranks: list[int] = []
    any_rank = torch_transpose = False
    uses_numba = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                modules.append(node.module or "")
            uses_numba = uses_numba or any(m.split(".")[0] == "numba" for m in modules)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            attr = node.func.attr
            args = list(node.args)
            if attr == "transpose":
                if len(args) == 1 and isinstance(args[0], ast.Tuple | ast.List):
                    args = list(args[0].elts)
                elif len(args) == 2 and isinstance(args[1], ast.Tuple | ast.List):
                    args = list(args[1].elts)  # np.transpose(K, (0, 2, 1))
                axes = _ints(args)
                if axes is not None and sorted(axes) in ([-2, -1],):
                    torch_transpose = True
                elif axes is not None and len(axes) in (3, 4) and min(axes) >= 0:
                    ranks.append(len(axes))
            elif attr in ("swapaxes", "moveaxis"):
                any_rank = True
            elif attr == "einsum" and args:
                spec = args[0]
                if isinstance(spec, ast.Constant) and isinstance(spec.value, str):
                    rank, anywhere = _einsum_rank(spec.value)
                    any_rank = any_rank or anywhere
                    if rank in (3, 4):
                        ranks.append(rank)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute):
            target = node.targets[0]
            names = target.elts if isinstance(target, ast.Tuple) else []
            plain = not any(isinstance(e, ast.Starred) for e in names)
            if node.value.attr == "shape" and plain and len(names) in (3, 4):
                ranks.append(len(names))
    rank = max(ranks) if ranks else None
    return Hints(rank, any_rank, torch_transpose, uses_numba)
