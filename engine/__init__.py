"""attnquiz: learn scaled dot-product attention by recall, derivation and code."""

from __future__ import annotations


def __getattr__(name: str) -> str:
    # The version is written once, in pyproject.toml; the installed distribution's metadata
    # carries it (read lazily, so that importing engine stays cheap).
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("attnquiz")
        except PackageNotFoundError:  # a source tree that was never installed
            return "0+unknown"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
