"""Where things live: the store folder, the built-in banks and drills, and the user's own sets."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

STORE_FILE = "attnquiz.sqlite3"
REPO_ROOT = Path(__file__).resolve().parent.parent


def store_dir(option: Path | None = None) -> Path:
    """`--data-dir`, else `$ATTNQUIZ_HOME`, else the platform's user data folder."""
    if option is not None:
        return option.expanduser()
    env = os.environ.get("ATTNQUIZ_HOME")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("attnquiz", appauthor=False))


def builtin_dir(kind: str) -> Path:
    """The shipped `quizzes` or `drills` folder: inside the wheel, or at the top of a checkout."""
    try:
        root = resources.files(f"engine.{kind}")
        path = Path(str(root))
        if path.is_dir():
            return path
    except (ModuleNotFoundError, TypeError):
        pass
    return REPO_ROOT / kind
