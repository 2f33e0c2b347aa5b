"""Where things live: the store folder, the built-in banks and drills, and the user's own sets."""

from __future__ import annotations

import os
from pathlib import Path

STORE_FILE = "attnquiz.sqlite3"
PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parent


def store_dir(option: Path | None = None) -> Path:
    """`--data-dir`, else `$ATTNQUIZ_HOME`, else the platform's user data folder."""
    if option is not None:
        return option.expanduser()
    env = os.environ.get("ATTNQUIZ_HOME")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("attnquiz", appauthor=False))


# Where each top-level data folder sits inside an installed wheel (see pyproject.toml); the
# drills cannot be `engine/drills`, which is the Python package that runs them.
SHIPPED_AS = {"quizzes": Path("quizzes"), "drills": Path("drills") / "builtin"}


def builtin_dir(kind: str) -> Path:
    """The shipped `quizzes` or `drills` folder.

    An installed wheel carries it inside the package; a source checkout or an editable install
    has it at the top of the repository.
    """
    inside = PACKAGE_DIR / SHIPPED_AS[kind]
    return inside if inside.is_dir() else REPO_ROOT / kind
