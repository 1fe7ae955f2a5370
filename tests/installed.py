"""kwire as people install it: a wheel built from a copy of the sources, in a fresh venv.

The venv gets only the wheel; its dependencies come from this test environment through a
``.pth`` line, so no package index is needed.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from tests.paths import REPO

# what a wheel is built from (everything else in the checkout is for developing kwire)
SOURCES = ("pyproject.toml", "setup.py", "README.md", "LICENSE", "kwire", "generator", "generated", "message_defs")


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"{command} failed:\n{result.stdout}\n{result.stderr}"
    return result


def copy_sources(target: Path) -> Path:
    """The files a wheel is built from, without build products (.so, bytecode)."""
    target.mkdir(parents=True)
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, target / name, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyc"))
        else:
            shutil.copy(REPO / name, target / name)
    return target


def build(source: Path, outdir: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``python -m build`` in this environment (its setuptools, mypy, ...)."""
    env = {k: v for k, v in {**os.environ, **(env or {})}.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return run([sys.executable, "-m", "build", "--no-isolation", *args, "--outdir", str(outdir), str(source)],
               cwd=source.parent, env=env)


def fresh_venv(wheel: Path, root: Path) -> Path:
    """A new virtual environment with only ``wheel`` installed (dependencies seen through .pth)."""
    run([sys.executable, "-m", "venv", "--without-pip", str(root)], cwd=root.parent)
    run([sys.executable, "-m", "pip", "--python", str(root / "bin" / "python"), "install", "--quiet", "--no-deps",
         "--no-index", "--ignore-installed", str(wheel)], cwd=root)
    # Only now the dependencies: pip must not see this environment's own (editable) kwire.
    site = Path(subprocess.check_output(
        [root / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('platlib'))"], text=True).strip())
    assert (site / "kwire" / "generated" / "__init__.py").is_file()
    # every site directory of this environment: a light venv reaches its packages through a .pth of its own,
    # which a directory named in another .pth does not get processed
    sites = [sysconfig.get_path("purelib")] + [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]
    (site / "zz_dependencies.pth").write_text("".join(f"{p}\n" for p in dict.fromkeys(sites)))
    return root
