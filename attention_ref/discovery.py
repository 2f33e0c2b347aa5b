"""Find the function to check in a submitted file, by reading it, never by running it.

For attention that is the public function, or the `forward`/`__call__` of a class whose
constructor needs no arguments, that can be called with (Q, K, V[, mask]); a softmax it calls is
a helper, not the target. Known names break ties. The parameters after Q, K, V get a role
(`mask`, `causal`, `d_k`, `axis`, ...) so the grader can fill them; a required parameter with no
role (X and weight matrices) makes the function uncallable, and the message says how attnquiz
calls the function and how to choose another with `--func`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from attention_ref.bounded_read import read_at_most
from attention_ref.source_hints import Hints, read_hints

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
HOW_ATTENTION_IS_CALLED = (
    "attnquiz calls attention as f(Q, K, V) with NumPy arrays Q (T_q, d_k), K (T_k, d_k), "
    "V (T_k, d_v) (or batched (B, T, d)), plus mask= when the function has a mask parameter; "
    "a softmax as f(scores)"
)

# Parameter roles beyond Q, K, V, by lower-cased name.
_MASK_WORDS = ("mask",)
_KEY_WORDS = ("key", "kv")
_FLAG_PREFIXES = ("use_", "has_", "with_", "add_")  # use_bias: a switch, not the bias itself
_CAUSAL_NAMES = {"causal", "is_causal", "use_causal_mask", "causal_mask_flag"}
_DK_NAMES = {"d_k", "dk", "d", "d_head", "head_dim", "d_model", "depth", "dim_k", "key_dim"}
_AXIS_NAMES = {"axis", "dim"}
_ZERO_NAMES = {"dropout", "dropout_p", "dropout_rate", "p_drop", "drop_prob"}
_FALSE_NAMES = {"training", "train", "return_weights", "return_attention", "verbose"}


class SubmissionError(Exception):
    """The file cannot be checked: unreadable, not Python, or no function to check."""

    def __init__(self, verdict: Literal["error", "not_found"], message: str) -> None:
        super().__init__(message)
        self.verdict = verdict


@dataclass(frozen=True)
class Found:
    """The function to check, how to call it and why it was chosen."""

    name: str  # "attention" or "ClassName.forward"
    target: Target
    parameters: tuple[str, ...]
    line: int
    why: str = ""
    # Parameter name -> role ("mask", "causal", "d_k", "zero", "false", and "padding" or "bias"
    # when required: a mask over keys that masks none, a bias of zeros); an axis, an optional
    # padding mask or bias, and any other optional parameter keep their defaults.
    roles: dict[str, str] = field(default_factory=dict)
    required: frozenset[str] = frozenset()
    hints: Hints = field(default_factory=Hints)
    # Optional parameters whose default turns dropout or training on: the grader turns them off.
    on_by_default: frozenset[str] = frozenset()

    @property
    def takes_mask(self) -> bool:
        return "mask" in self.roles.values()

    @property
    def mask_required(self) -> bool:
        return any(r == "mask" and p in self.required for p, r in self.roles.items())

    def parameter(self, role: str) -> str | None:
        return next((p for p, r in self.roles.items() if r == role), None)

    @property
    def causal_by_name(self) -> bool:
        """`causal_attention(Q, K, V)`: a function that masks the future by itself."""
        lowered = self.name.lower()
        flagged = self.takes_mask or self.parameter("causal") is not None
        return not flagged and ("causal" in lowered or "masked" in lowered)


@dataclass
class _Callable:
    name: str
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    params: list[str]
    required: set[str]
    order: int
    references: set[str]
    owner: str | None = None  # the class, for a method
    made: str = ""  # how the module builds it, for a callable it makes (`attn = Attention()`)

    @property
    def short(self) -> str:
        return self.name.rpartition(".")[2]


def find_function(path: Path, name: str | None = None) -> Found:
    """`name` if given (a function, a class or Class.method), else the attention function, else
    a softmax; raises SubmissionError when there is none that attnquiz can call."""
    tree = _parse(path)
    hints = read_hints(tree)
    functions, classes = _definitions(tree)
    if name is not None:
        return _named(path, name, functions, classes, hints)
    callables = [c for c in [*functions.values(), *_methods(classes)] if _public(c)]
    attention = [c for c in callables if _attention_roles(c) is not None]
    # A stub (an interface's method that raises NotImplementedError) is not the implementation.
    attention = [c for c in attention if not _stub(c.node)] or attention
    if attention:
        chosen, why = _choose(attention, callables, ATTENTION_NAMES)
        return _found(chosen, "attention", why, hints)
    unusable = [c for c in callables if _looks_like_attention(c)]
    if unusable:
        raise SubmissionError("not_found", _uncallable_message(unusable[0]))
    softmax = [c for c in callables if _softmax_roles(c) is not None]
    if softmax:
        chosen, why = _choose(softmax, callables, SOFTMAX_NAMES)
        return _found(chosen, "softmax", why, hints)
    blocked = [c for c in classes.values() if not _constructible(c, classes)]
    if blocked:
        cls = blocked[0]
        raise SubmissionError(
            "not_found",
            f"class {cls.name} needs constructor arguments, so attnquiz cannot make one; "
            f"{HOW_ATTENTION_IS_CALLED}. Add a function attention(Q, K, V), or give the "
            "constructor defaults, or name a function with --func NAME",
        )
    if callables:
        raise SubmissionError("not_found", _uncallable_message(callables[0]))
    raise SubmissionError("not_found", f"{path.name} defines no function to check")


def _parse(path: Path) -> ast.Module:
    try:
        raw = read_at_most(path, MAX_SOURCE_BYTES)
    except OSError as exc:
        raise SubmissionError("error", f"cannot read {path}: {exc.strerror}") from exc
    if raw is None:
        raise SubmissionError("error", f"{path} is larger than 1 MB; submit the function alone")
    try:
        return ast.parse(raw, filename=str(path))
    except SyntaxError as exc:
        where = f" (line {exc.lineno})" if exc.lineno else ""
        raise SubmissionError("error", f"SyntaxError: {exc.msg}{where}") from exc
    except ValueError as exc:  # e.g. null bytes, on Pythons that raise ValueError for them
        raise SubmissionError("error", f"not a readable Python file: {exc}") from exc
    except (RecursionError, MemoryError) as exc:
        # The parser's own limits: an expression nested or chained beyond what it can hold.
        raise SubmissionError(
            "error",
            f"not a readable Python file ({type(exc).__name__}): an expression is nested too "
            "deeply or too long for Python's parser; split it up",
        ) from exc


def top_level_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements that run when the module is imported, in order: the top level, and the
    branches of a top-level `if` or `try` (a definition made only when SciPy or JAX is there,
    or in the fallback), but not an `if __name__ == "__main__":` block, which grading never
    runs. When both branches define a name, the later one is kept, as if both ran."""
    statements: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.If):
            if not _main_guard(node.test):
                statements += top_level_statements(node.body)
            statements += top_level_statements(node.orelse)
        elif isinstance(node, ast.Try):
            statements += top_level_statements(node.body)
            for handler in node.handlers:
                statements += top_level_statements(handler.body)
            statements += top_level_statements(node.orelse)
            statements += top_level_statements(node.finalbody)
        else:
            statements.append(node)
    return statements


def _main_guard(test: ast.expr) -> bool:
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
    )


def _definitions(tree: ast.Module) -> tuple[dict[str, _Callable], dict[str, ast.ClassDef]]:
    functions: dict[str, _Callable] = {}
    classes: dict[str, ast.ClassDef] = {}
    for order, node in enumerate(top_level_statements(tree.body)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            functions[node.name] = _callable(node, node.name, order, skip_self=False)
        elif (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Lambda)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            # attention = lambda Q, K, V: ...
            name = node.targets[0].id
            functions[name] = _callable(node.value, name, order, skip_self=False)
        elif isinstance(node, ast.ClassDef):
            classes[node.name] = node
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            for made in _made(node.targets[0].id, node.value, order, functions, classes):
                functions[made.name] = made
    return functions, classes


# Calls that return the function they are given, wrapped: `attention = njit(attention_py)`,
# and the mapping wrappers called with the same arguments as the function they map over rows
# (`np.vectorize(one_query, signature=...)`, `vmap(one_query, in_axes=(0, None, None))`).
_WRAPPERS = {"partial", "jit", "njit", "cache", "lru_cache", "vectorize", "vmap"}


def _made(
    name: str,
    value: ast.expr,
    order: int,
    functions: dict[str, _Callable],
    classes: dict[str, ast.ClassDef],
) -> list[_Callable]:
    """The callables a module-level assignment makes from what the file defines, called as the
    module leaves them: an alias (`sdpa = _attention`), a wrapped function (`attention =
    partial(_attention, scale=None)`, `njit(cache=True)(attention_py)`), the function a factory
    it defines returns (`attention = make_attention(causal=False)`), or an instance of one of its
    classes (`attn = Attention(dropout=0.0)`), through its `__call__` and its `forward`."""
    made = f"{name} = {ast.unparse(value)}"
    made = made if len(made) <= 60 else made[:57] + "..."
    if isinstance(value, ast.Name) and value.id in functions:
        return [replace(functions[value.id], name=name, order=order, made=made)]
    if not isinstance(value, ast.Call):
        return []
    if isinstance(value.func, ast.Name) and value.func.id in classes:
        return _instance_methods(name, classes[value.func.id], classes, order, made)
    factory = functions.get(value.func.id) if isinstance(value.func, ast.Name) else None
    inner = _returned_function(factory.node) if factory is not None else None
    if inner is not None:
        return [_callable(inner, name, order, skip_self=False, made=made)]
    wrapper = value.func.func if isinstance(value.func, ast.Call) else value.func
    wrapper_name = wrapper.id if isinstance(wrapper, ast.Name) else getattr(wrapper, "attr", "")
    first = value.args[0] if value.args else None
    if wrapper_name in _WRAPPERS - {"partial"} and isinstance(first, ast.Call):
        # A wrapper of a wrapper: `jit(partial(_attention, causal=False))`.
        return [replace(c, made=made) for c in _made(name, first, order, functions, classes)]
    if wrapper_name not in _WRAPPERS or not isinstance(first, ast.Name):
        return []
    wrapped = functions.get(first.id)
    if wrapped is None:
        return []
    if wrapper_name != "partial":
        return [replace(wrapped, name=name, order=order, made=made)]
    # partial(f, *args, **keywords): the leading parameters and the keywords are bound.
    bound = {k.arg for k in value.keywords}
    params = [p for p in wrapped.params[len(value.args) - 1 :] if p not in bound]
    required = wrapped.required & set(params)
    return [replace(wrapped, name=name, order=order, made=made, params=params, required=required)]


def _returned_function(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
) -> ast.FunctionDef | ast.Lambda | None:
    """The function a factory returns: a function defined in its body, or a lambda."""
    if isinstance(node, ast.Lambda):
        return None
    inner = {n.name: n for n in node.body if isinstance(n, ast.FunctionDef)}
    for statement in node.body:
        if isinstance(statement, ast.Return):
            if isinstance(statement.value, ast.Lambda):
                return statement.value
            if isinstance(statement.value, ast.Name) and statement.value.id in inner:
                return inner[statement.value.id]
    return None


def _instance_methods(
    name: str, cls: ast.ClassDef, classes: dict[str, ast.ClassDef], order: int, made: str
) -> list[_Callable]:
    """`name` itself (its class's `__call__`) and `name.forward`, as defined in the class or
    in a base class the file defines."""
    found: dict[str, _Callable] = {}
    for depth in range(10):
        for node in cls.body:
            if isinstance(node, ast.FunctionDef) and node.name in {"__call__", "forward"}:
                label = name if node.name == "__call__" else f"{name}.forward"
                if label not in found:
                    found[label] = _callable(
                        node, label, order, skip_self=True, owner=cls.name, made=made
                    )
        bases = [b.id for b in cls.bases if isinstance(b, ast.Name) and b.id in classes]
        if not bases or depth == 9:
            break
        cls = classes[bases[0]]
    return list(found.values())


def _callable(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
    name: str,
    order: int,
    *,
    skip_self: bool,
    owner: str | None = None,
    made: str = "",
) -> _Callable:
    args = node.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    n_defaults = len(args.defaults)
    required = set(positional[: len(positional) - n_defaults])
    required |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is None}
    params = positional + [a.arg for a in args.kwonlyargs]
    decorators = [] if isinstance(node, ast.Lambda) else node.decorator_list
    is_static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in decorators)
    if skip_self and params and not is_static:
        required.discard(params[0])
        params = params[1:]
    references = {
        n.id if isinstance(n, ast.Name) else n.attr
        for n in ast.walk(node)
        if isinstance(n, ast.Name | ast.Attribute)
    }
    return _Callable(name, node, params, required, order, references, owner, made)


def _methods(classes: dict[str, ast.ClassDef]) -> list[_Callable]:
    """`forward` and `__call__` of the classes that need no constructor arguments, and the
    static and class methods of every class, which are called without making one."""
    found = []
    for cls in classes.values():
        if cls.name.startswith("_"):
            continue
        methods = {
            n.name: n for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        makeable = _constructible(cls, classes) and not _abstract(cls)
        usable = {m for m in ("forward", "__call__") if makeable}
        usable |= {name for name, node in methods.items() if _without_instance(node)}
        for method in sorted(usable & set(methods), key=lambda m: methods[m].lineno):
            order = cls.lineno * 1000 + methods[method].lineno
            found.append(
                _callable(
                    methods[method], f"{cls.name}.{method}", order, skip_self=True, owner=cls.name
                )
            )
    return found


def _abstract(cls: ast.ClassDef) -> bool:
    """A typing.Protocol, or a class with an @abstractmethod of its own: an interface, which
    cannot be made."""
    if any(_called_name(base) == "Protocol" for base in cls.bases):
        return True
    return any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and any(_called_name(d) == "abstractmethod" for d in node.decorator_list)
        for node in cls.body
    )


def _stub(node: ast.AST) -> bool:
    """A function whose body does nothing but raise NotImplementedError (after a docstring,
    `...` or `pass`)."""
    body = getattr(node, "body", None)
    if not isinstance(body, list):
        return False  # a lambda
    raises = False
    for statement in body:
        if isinstance(statement, ast.Pass):
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring or ...
        exc = statement.exc if isinstance(statement, ast.Raise) else None
        if exc is not None and _called_name(exc) == "NotImplementedError":
            raises = True
            continue
        return False
    return raises


def _without_instance(node: ast.AST) -> bool:
    """A @staticmethod or @classmethod: `Class.method(...)` needs no instance."""
    return any(
        isinstance(d, ast.Name) and d.id in {"staticmethod", "classmethod"}
        for d in getattr(node, "decorator_list", ())
    )


def _constructible(cls: ast.ClassDef, classes: dict[str, ast.ClassDef], depth: int = 0) -> bool:
    """Whether `cls()` needs no arguments, as far as reading the file tells."""
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            init = _callable(node, "__init__", 0, skip_self=True)
            return not init.required
    if _dataclass_needs_arguments(cls):
        return False
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id in classes and depth < 10:
            return _constructible(classes[base.id], classes, depth + 1)
    return True


def _called_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    return target.id if isinstance(target, ast.Name) else getattr(target, "attr", "")


def _dataclass_needs_arguments(cls: ast.ClassDef) -> bool:
    """Whether a @dataclass (with the __init__ it writes) has a field without a default: an
    annotated name with no value, or a `field()` with neither default nor default_factory."""
    decorator = next((d for d in cls.decorator_list if _called_name(d) == "dataclass"), None)
    if decorator is None:
        return False
    if isinstance(decorator, ast.Call) and any(
        k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False
        for k in decorator.keywords
    ):
        return False  # @dataclass(init=False): no generated __init__
    for node in cls.body:
        if not isinstance(node, ast.AnnAssign) or not isinstance(node.target, ast.Name):
            continue
        annotation = ast.unparse(node.annotation)
        if "ClassVar" in annotation or "KW_ONLY" in annotation:
            continue  # not a field of the constructor
        if node.value is None:
            return True
        if isinstance(node.value, ast.Call) and _called_name(node.value) == "field":
            given = {k.arg: k.value for k in node.value.keywords}
            init = given.get("init")
            if isinstance(init, ast.Constant) and init.value is False:
                continue
            if "default" not in given and "default_factory" not in given:
                return True
    return False


def _public(c: _Callable) -> bool:
    return not c.short.startswith("_") or c.short == "__call__"


def _role(param: str) -> str | None:
    lowered = param.lower()
    if "pad" in lowered:
        return "padding"  # a mask over keys (key_padding_mask), not a causal one
    if any(word in lowered for word in _MASK_WORDS):
        # A mask named for the keys (key_mask, kv_mask) is one per key: padding, not causal.
        return "padding" if any(w in lowered for w in _KEY_WORDS) else "mask"
    if "bias" in lowered and not lowered.startswith(_FLAG_PREFIXES):
        return "bias"  # added to the scores (T5's position_bias, attn_bias, ALiBi)
    if lowered in _CAUSAL_NAMES:
        return "causal"
    if lowered in _DK_NAMES:
        return "d_k"
    if lowered in _AXIS_NAMES:
        return "axis"
    if lowered in _ZERO_NAMES:
        return "zero"
    if lowered in _FALSE_NAMES:
        return "false"
    return None


def _qkv_named(params: list[str]) -> bool:
    return len(params) >= 3 and all(
        p.lower().lstrip("_").startswith(letter) for p, letter in zip(params, "qkv", strict=False)
    )


def _attention_roles(c: _Callable) -> dict[str, str] | None:
    """Roles of the parameters after Q, K, V, or None when (Q, K, V) cannot call it."""
    params = c.params
    if len(params) < 3 or not (_qkv_named(params) or len(c.required) == 3):
        return None
    if any(_role(p) in {"mask", "padding", "axis"} for p in params[:3]):
        return None
    roles: dict[str, str] = {}
    for param in params[3:]:
        role = _role(param)
        if role in {None, "axis"} or (role in {"padding", "bias"} and param not in c.required):
            if param in c.required:
                return None
            continue  # left at its default
        roles[param] = role
    return roles


def _softmax_roles(c: _Callable) -> dict[str, str] | None:
    params = c.params
    if not params or _role(params[0]) is not None:
        return None
    if c.owner is not None and "softmax" not in c.owner.lower():
        return None  # a layer's forward(x) is not a softmax
    roles: dict[str, str] = {}
    for param in params[1:]:
        role = _role(param)
        if role == "axis":
            roles[param] = role
        elif param in c.required:
            return None
    return roles


def _looks_like_attention(c: _Callable) -> bool:
    words = ("attention", "attn", "sdpa", "head", "transformer")
    named = c.short.lower() + " " + (c.owner or "").lower()
    return any(w in named for w in words) or (c.owner is not None and len(c.required) >= 2)


def _choose(
    candidates: list[_Callable], everything: list[_Callable], known: tuple[str, ...]
) -> tuple[_Callable, str]:
    if len(candidates) == 1:
        return candidates[0], "the only function that can be called this way"
    for name in known:
        named = [c for c in candidates if c.short == name]
        if named:
            return named[0], f"a known name, among {len(candidates)} candidates"
    named_qkv = [c for c in candidates if _qkv_named(c.params)] or candidates
    names = {c.short for c in named_qkv}
    top = [
        c
        for c in named_qkv
        if not any(c.short in other.references for other in everything if other.short != c.short)
    ]
    pool = top or named_qkv
    if len(pool) == 1:
        others = ", ".join(sorted(names - {pool[0].short}))
        return pool[0], f"it calls the other candidates ({others})" if others else "only one"
    about = [c for c in pool if "attention" in c.short.lower()] or pool
    chosen = max(about, key=lambda c: c.order)
    return chosen, f"the last defined of {len(candidates)} candidates (choose with --func)"


def _found(chosen: _Callable, target: Target, why: str, hints: Hints) -> Found:
    roles = (_attention_roles(chosen) if target == "attention" else _softmax_roles(chosen)) or {}
    kind = ""
    if chosen.made:
        kind = f"made by the file as {chosen.made}"
    elif chosen.owner and _without_instance(chosen.node):
        kind = f"static or class method of class {chosen.owner} (called without an instance)"
    elif chosen.owner:
        kind = f"method of class {chosen.owner} (no constructor arguments)"
    reason = f"{why}; {kind}" if kind else why
    defaults = _defaults(chosen.node)
    on = {
        param
        for param, role in roles.items()
        if role in {"zero", "false"} and param in defaults and _switched_on(defaults[param])
    }
    return Found(
        chosen.name,
        target,
        tuple(chosen.params),
        chosen.node.lineno,
        reason,
        roles,
        frozenset(chosen.required),
        hints,
        frozenset(on - chosen.required),
    )


def _defaults(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> dict[str, ast.expr]:
    args = node.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    found = dict(
        zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True)
    )
    found.update(
        {a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None}
    )
    return found


def _switched_on(default: ast.expr) -> bool:
    """A default that turns dropout or training on: a nonzero number, or True (not None, not a
    dropout layer object)."""
    value = default.value if isinstance(default, ast.Constant) else None
    return value is True or (type(value) in (int, float) and value != 0)


def _named(
    path: Path,
    name: str,
    functions: dict[str, _Callable],
    classes: dict[str, ast.ClassDef],
    hints: Hints,
) -> Found:
    chosen: _Callable | None = functions.get(name)
    if chosen is None:
        class_name, _, method = name.partition(".")
        cls = classes.get(class_name)
        if cls is not None:
            methods = {m.short: m for m in _methods(classes) if m.owner == class_name}
            if method in methods and _without_instance(methods[method].node):
                chosen = methods[method]
            elif not _constructible(cls, classes):
                raise SubmissionError(
                    "not_found",
                    f"class {class_name} needs constructor arguments; " + HOW_ATTENTION_IS_CALLED,
                )
            elif method:
                chosen = methods.get(method)
            else:
                chosen = methods.get("forward") or methods.get("__call__")
    if chosen is None:
        known = ", ".join(sorted([*functions, *classes])) or "none"
        raise SubmissionError("not_found", f"no function {name!r} in {path} (defined: {known})")
    if _attention_roles(chosen) is not None:
        return _found(chosen, "attention", "named with --func", hints)
    if _softmax_roles(chosen) is not None:
        return _found(chosen, "softmax", "named with --func", hints)
    raise SubmissionError("not_found", _uncallable_message(chosen))


def _uncallable_message(c: _Callable) -> str:
    signature = f"{c.name}({', '.join(c.params)})"
    return (
        f"{signature} cannot be called the way attnquiz checks code: {HOW_ATTENTION_IS_CALLED}. "
        "Write a function that takes (Q, K, V) (your projections can call it), or name one "
        "with --func NAME"
    )
