"""Keep attnquiz's own packages out of a submission's reach, and every other package in it.

A submission may import anything installed beside attnquiz (numba, scipy, ...), so the
site-packages folder stays on sys.path and readable. attnquiz's own packages (`engine`,
`attention_ref`) hold the reference answers: Landlock's read grants are split around their
folders (the folders above them stay listable, their files unreadable), a finder at the front of
sys.meta_path refuses their names with a clear message, and the harness's own modules are
dropped from sys.modules before the submission is imported. The finder is a courtesy; the
Landlock rules are the boundary.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

OWN_PACKAGES = ("attention_ref", "engine")


def own_package_folders(package_root: str) -> list[str]:
    """The real folders of attnquiz's packages beside (or under) `package_root`."""
    found = []
    for name in OWN_PACKAGES:
        folder = os.path.join(package_root, name)
        if os.path.isdir(folder):
            found.append(os.path.realpath(folder))
    return found


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def split_grants(grants: Iterable[str], hidden: Sequence[str]) -> tuple[list[str], list[str]]:
    """(read-only grants, list-only folders): each grant that contains a hidden folder becomes
    its other entries, and the folders on the way down may only be listed."""
    read_only: list[str] = []
    list_only: list[str] = []

    def split(folder: str) -> None:
        list_only.append(folder)
        try:
            entries = sorted(os.listdir(folder))
        except OSError:
            return
        for entry in entries:
            path = os.path.realpath(os.path.join(folder, entry))
            if any(_under(path, h) for h in hidden):
                continue
            if any(_under(h, path) for h in hidden) and os.path.isdir(path):
                split(path)
            else:
                read_only.append(os.path.join(folder, entry))

    for grant in grants:
        real = os.path.realpath(grant)
        if any(_under(real, h) for h in hidden):
            continue
        if any(_under(h, real) for h in hidden) and os.path.isdir(real):
            split(real)
        else:
            read_only.append(grant)
    return read_only, list_only


class _OwnPackageFinder:
    """Refuses `import attention_ref...` and `import engine...` with a message that says why."""

    @staticmethod
    def find_spec(
        name: str, path: object = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        top = name.partition(".")[0]
        if top in OWN_PACKAGES:
            raise ModuleNotFoundError(
                f"No module named {name!r}: attnquiz's own packages cannot be imported by a "
                "submission (write the computation yourself)",
                name=name,
            )
        return None


def hide_own_modules() -> None:
    """Drop the harness's modules from sys.modules and refuse their names from now on."""
    for name in list(sys.modules):
        if name.partition(".")[0] in OWN_PACKAGES:
            del sys.modules[name]
    sys.meta_path.insert(0, _OwnPackageFinder())  # type: ignore[arg-type]
    import importlib

    importlib.invalidate_caches()
