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


def fresh_venv(wheel: Path, root: Path, extras: bool = True) -> Path:
    """A new virtual environment with only ``wheel`` installed (dependencies seen through .pth).

    ``extras=False``: it sees only the distributions the wheel requires without extras (and theirs),
    linked into a folder of their own, as ``pip install kwire`` would install them."""
    run([sys.executable, "-m", "venv", "--without-pip", str(root)], cwd=root.parent)
    run([sys.executable, "-m", "pip", "--python", str(root / "bin" / "python"), "install", "--quiet", "--no-deps",
         "--no-index", "--ignore-installed", str(wheel)], cwd=root)
    # Only now the dependencies: pip must not see this environment's own (editable) kwire.
    site = Path(subprocess.check_output(
        [root / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('platlib'))"], text=True).strip())
    assert (site / "kwire" / "generated" / "__init__.py").is_file()
    if extras:  # every site-packages folder this interpreter reads (a venv may reach another by a .pth)
        folders = [sysconfig.get_path("purelib"), *(p for p in sys.path if p.endswith("site-packages"))]
        dependencies = "\n".join(dict.fromkeys(folders))
    else:
        dependencies = str(required_only(wheel, root / "required"))
    (site / "zz_dependencies.pth").write_text(dependencies + "\n")
    return root


def required_only(wheel: Path, folder: Path) -> Path:
    """A folder of links to the files of the distributions ``wheel`` requires without any extra."""
    import importlib.metadata
    import re
    import zipfile

    with zipfile.ZipFile(wheel) as opened:
        (name,) = [n for n in opened.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = opened.read(name).decode()
    wanted = [line.partition(":")[2] for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    folder.mkdir(parents=True)
    seen: set[str] = set()
    while wanted:
        requirement = wanted.pop()
        if "extra ==" in requirement:
            continue
        project = re.match(r"\s*([A-Za-z0-9_.-]+)", requirement).group(1).lower()
        if project in seen:
            continue
        seen.add(project)
        distribution = importlib.metadata.distribution(project)
        wanted += distribution.requires or []
        for top in {file.parts[0] for file in distribution.files or [] if not file.parts[0].startswith("..")}:
            source = Path(distribution.locate_file(top))
            if source.exists() and not (folder / top).exists():
                (folder / top).symlink_to(source)
    return folder
