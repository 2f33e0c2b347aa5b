"""Run a learner's submission in a confined child process and talk to it over a private channel.

`runner.Sandbox` is the parent side (`launch` starts the child, `channel` talks to it, `endings`
says how it died); `child` is the harness inside the sandbox; `isolation`, `landlock` and
`limits` confine it; `protocol` and `arrays` are the wire format; `processes` finds and kills
whatever the sandbox started; `output` keeps the tails of what it printed.

The public names load lazily: the child imports this package before it forks and must not pull
in NumPy (which the parent side needs) at that point.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from attention_ref.sandbox.limits import Limits
    from attention_ref.sandbox.results import CallResult, SandboxReport, Status
    from attention_ref.sandbox.runner import Sandbox, SandboxError

__all__ = ["CallResult", "Limits", "Sandbox", "SandboxError", "SandboxReport", "Status"]

_HOMES = {
    "CallResult": "results",
    "Limits": "limits",
    "Sandbox": "runner",
    "SandboxError": "runner",
    "SandboxReport": "results",
    "Status": "results",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{_HOMES[name]}")
    return getattr(module, name)
