"""The sandbox's memory cgroup: made with its limit where the kernel allows, said so where not."""

from __future__ import annotations

import subprocess
import sys

import pytest

from attention_ref.sandbox import memory_cgroup

from .conftest import needs_root


def test_without_root_the_cgroup_is_unavailable_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(memory_cgroup.os, "geteuid", lambda: 1000)
    with pytest.raises(memory_cgroup.CgroupUnavailable, match="not running as root"):
        memory_cgroup.create(2**30)


def test_without_a_cgroup_filesystem_the_reason_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_cgroup.os, "geteuid", lambda: 0)
    monkeypatch.setattr(memory_cgroup, "_mounts", lambda: [])
    with pytest.raises(memory_cgroup.CgroupUnavailable, match="no memory controller"):
        memory_cgroup.create(2**30)


@needs_root
def test_a_process_over_the_group_limit_is_killed_and_counted() -> None:
    group = memory_cgroup.create(64 * 2**20)
    try:
        hog = subprocess.Popen(
            [sys.executable, "-c", "import sys; sys.stdin.read(1); x = bytearray(256 * 2**20)"],
            stdin=subprocess.PIPE,
        )
        group.add(hog.pid)
        assert not group.out_of_memory()
        hog.communicate(b"go", timeout=60)
        assert hog.returncode == -9  # SIGKILL from the OOM killer
        assert group.out_of_memory()
    finally:
        group.remove()
    assert not group.path.exists()
