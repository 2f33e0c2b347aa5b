"""The `terminal` fixture: start the real `attnquiz` in a pseudo-terminal (`terminal.Terminal`),
closed (killed if still running) after the test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.engine.ui.terminal import Terminal


@pytest.fixture
def terminal(store_home: Path) -> Iterator[type[Terminal]]:
    opened: list[Terminal] = []

    def start(*args: str) -> Terminal:
        t = Terminal(store_home, *args)
        opened.append(t)
        return t

    yield start  # type: ignore[misc]
    for t in opened:
        t.close()
