"""The read grants of a sandbox are split around attnquiz's own packages."""

from __future__ import annotations

from pathlib import Path

from attention_ref.sandbox.own_packages import own_package_folders, split_grants


def make_site(tmp_path: Path) -> Path:
    site = tmp_path / "venv" / "lib" / "site-packages"
    for name in ("numpy", "numba", "attention_ref", "engine", "attnquiz-0.1.dist-info"):
        (site / name).mkdir(parents=True)
        (site / name / "__init__.py").write_text("")
    (site / "six.py").write_text("")
    (tmp_path / "venv" / "bin").mkdir()
    return site


def test_own_packages_are_found_beside_the_package_root(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    assert own_package_folders(str(site)) == [
        str((site / "attention_ref").resolve()),
        str((site / "engine").resolve()),
    ]


def test_a_grant_holding_them_becomes_its_other_entries_and_listable_folders(tmp_path) -> None:
    site = make_site(tmp_path)
    hidden = own_package_folders(str(site))
    readable, listable = split_grants([str(tmp_path / "venv"), "/usr"], hidden)
    assert "/usr" in readable
    assert str(site / "numpy") in readable and str(site / "six.py") in readable
    assert str(tmp_path / "venv" / "bin") in readable
    assert not any("attention_ref" in p or p.endswith("engine") for p in readable)
    # Folders on the way down stay listable (imports look names up), their files unreadable.
    assert {str(tmp_path / "venv"), str(site)} <= set(listable)


def test_a_grant_inside_an_own_package_is_dropped(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    readable, listable = split_grants([str(site / "engine")], own_package_folders(str(site)))
    assert (readable, listable) == ([], [])
