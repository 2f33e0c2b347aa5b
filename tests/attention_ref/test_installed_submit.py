"""From a normal (non-editable) install, a submission can import every installed package
(numba, scipy) but not attnquiz's own packages."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).parent / "submissions" / "corpus"
BESIDE = ("numpy", "numpy.libs", "numba", "llvmlite", "scipy", "scipy.libs")
# Real sandboxes (and a wheel build): the quick subset leaves these out.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory, attnquiz_wheel: Path) -> Path:
    """A fresh venv with the attnquiz wheel (built once per run, conftest) installed, not
    editable. The packages submissions use (NumPy, Numba, SciPy) are hard-linked into the same
    site-packages folder as attnquiz, as a normal install puts them; the CLI's other
    dependencies come from this environment's site-packages through a .pth line."""
    folder = tmp_path_factory.mktemp("installed")
    run = lambda *argv: subprocess.run(  # noqa: E731
        argv, capture_output=True, text=True, timeout=600, check=False
    )
    wheel = attnquiz_wheel
    venv = folder / "venv"
    made = run(sys.executable, "-m", "venv", "--without-pip", str(venv))
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    put = run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        str(python),
        "install",
        "--no-deps",
        "-q",
        str(wheel),
    )
    assert put.returncode == 0, put.stderr
    site = run(str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    here = sysconfig.get_paths()["purelib"]
    target = Path(site.stdout.strip())
    (target / "beside.pth").write_text(here + "\n", encoding="utf-8")
    for name in BESIDE:
        if (Path(here) / name).is_dir():
            shutil.copytree(Path(here) / name, target / name, copy_function=_link_or_copy)
    return venv


def _link_or_copy(source: str, destination: str) -> None:
    try:
        os.link(source, destination)
    except OSError:
        shutil.copy2(source, destination)


def submit(venv: Path, name: str) -> dict:
    done = subprocess.run(
        [
            str(venv / "bin" / "attnquiz"),
            "submit",
            str(CORPUS / f"{name}.py"),
            "--no-time",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=venv.parent,
        check=False,
    )
    return json.loads(done.stdout)


def test_the_installed_package_is_the_wheel(installed: Path) -> None:
    where = subprocess.run(
        [
            str(installed / "bin" / "python"),
            "-c",
            "import attention_ref; print(attention_ref.__file__)",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=installed.parent,
    ).stdout
    assert str(installed) in where and str(ROOT / "attention_ref") not in where


@pytest.mark.parametrize("name", ["scipy_softmax", "numba_loops"])
def test_installed_packages_can_be_imported_by_a_submission(installed: Path, name: str) -> None:
    pytest.importorskip(name.split("_")[0])
    out = submit(installed, name)
    assert out["verdict"] == "pass", out["message"]


def test_attnquiz_own_reference_is_out_of_reach(installed: Path) -> None:
    out = submit(installed, "imports_reference")
    assert out["verdict"] == "error" and not out["passed"]
    assert "attention_ref" in out["message"]
