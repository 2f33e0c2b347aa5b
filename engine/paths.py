"""Where things live: the store folder, the built-in banks and drills, and the user's own sets."""

from __future__ import annotations

import os
from pathlib import Path

STORE_FILE = "attnquiz.sqlite3"
PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parent


def expand_home(path: Path) -> Path:
    """`path` with a leading `~` or `~user` replaced by that home folder; a home that cannot be
    found (no such user, no $HOME) is a UsageError that names the path."""
    try:
        return path.expanduser()
    except RuntimeError:
        from engine.errors import UsageError

        home = str(path).split("/", 1)[0]
        raise UsageError(
            f"cannot find the home folder {home} of the path {str(path)!r}: write the path in full"
        ) from None


def store_dir(option: Path | None = None) -> Path:
    """`--data-dir`, else `$ATTNQUIZ_HOME`, else the platform's user data folder."""
    if option is not None:
        return expand_home(option)
    env = os.environ.get("ATTNQUIZ_HOME")
    if env:
        return expand_home(Path(env))
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
