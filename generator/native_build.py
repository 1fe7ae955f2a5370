"""Build the optional compiled (mypyc) flavour of a generated package.

``kwire generate --compile`` first writes the pure-Python package as usual, then calls
:func:`compile_package`, which:

1. renders the same definitions with ``native=True`` (reads shaped for compiled code) into a
   staging copy of the package in a build directory, with ``kwire/struct_base.py`` copied in
   as ``_base.py`` so that the base class is native too;
2. runs ``setup.py build_ext --inplace`` there with ``mypycify`` (one mypyc group per package,
   whose shared library lives inside the package as ``_compiled__mypyc``);
3. copies the extension modules next to the ``.py`` files of the output package.

Python imports an extension module in preference to the ``.py`` of the same name, so the
compiled modules take over when present; remove them (or regenerate with changes, which does)
and the pure-Python package is back. Nothing of kwire itself is built in place.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

import kwire

from .emit import NATIVE_BASE, module_name, render_all
from .model import Message

# Name of the mypyc group inside the package: its shared library is <package>/_compiled__mypyc.*.so
GROUP = "_compiled"


class CompileUnavailable(Exception):
    """No mypyc or no C compiler here: the pure-Python package is all there is."""


class CompileFailed(Exception):
    """mypyc or the C compiler ran and failed; ``log`` has their output."""

    def __init__(self, message: str, log: str) -> None:
        super().__init__(message)
        self.log = log


@dataclass
class CompileResult:
    extensions: list[str]  # file names copied into the output package
    modules: list[str]     # generated modules compiled (without the base module)
    build_dir: Path


def extension_suffix() -> str:
    return sysconfig.get_config_var("EXT_SUFFIX") or ".so"


def compiled_extensions(package_dir: Path) -> list[Path]:
    """The extension modules of a compiled build in ``package_dir``."""
    return sorted(p for p in package_dir.glob("*" + extension_suffix()) if p.is_file())


def remove_compiled(package_dir: Path) -> list[str]:
    """Delete every compiled extension in ``package_dir`` (the .py files stay)."""
    removed = []
    for path in compiled_extensions(package_dir):
        path.unlink()
        removed.append(path.name)
    return removed


def check_toolchain() -> None:
    """Raise CompileUnavailable unless mypyc and a C compiler are present."""
    if importlib.util.find_spec("mypyc") is None:
        raise CompileUnavailable("mypyc is not installed (pip install mypy); the pure-Python package works without it")
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(os.environ.get("CC", compiler).split()[0]) is None:
        raise CompileUnavailable(f"no C compiler found ({compiler!r} is not on PATH); "
                                 "the pure-Python package works without it")


def native_sources(messages: list[Message], only: set[str] | None = None) -> dict[str, str]:
    """File name -> source of the modules to compile (the base module always among them)."""
    files = render_all(messages, native=True)
    names = {f"{module_name(m)}.py" for m in messages if only is None or m.name in only}
    if only is not None and len(names) != len(only):
        known = {m.name for m in messages}
        raise ValueError(f"no such definitions: {', '.join(sorted(only - known))}")
    return {name: text for name, text in files.items() if name in names or name == NATIVE_BASE}


def source_hash(sources: dict[str, str]) -> str:
    """A key for a build: the sources, the mypy/mypyc version and the Python that builds."""
    import mypy.version

    digest = hashlib.sha256()
    digest.update(f"{mypy.version.__version__} {sys.version} {extension_suffix()}".encode())
    for name in sorted(sources):
        digest.update(name.encode() + b"\0" + sources[name].encode() + b"\0")
    return digest.hexdigest()[:20]


_SETUP = """\
from setuptools import setup
from mypyc.build import mypycify

setup(name={package!r}, ext_modules=mypycify({paths!r}, opt_level="3", debug_level="0",
                                              group_name={group!r}))
"""


def build_extensions(package: str, sources: dict[str, str], build_dir: Path, *, jobs: int = 2) -> list[Path]:
    """Compile ``sources`` as package ``package`` in ``build_dir``; return the extension files."""
    check_toolchain()
    src = build_dir / "src"
    if src.exists():
        shutil.rmtree(src)
    (src / package).mkdir(parents=True)
    (src / package / "__init__.py").write_text("")  # the real __init__ is not compiled
    for name, text in sources.items():
        (src / package / name).write_text(text)
    # mypy must see kwire's sources (the generated code imports it), and nothing else of the
    # checkout: a directory with only a link to the kwire package.
    stubs = build_dir / "mypypath"
    stubs.mkdir(exist_ok=True)
    link = stubs / "kwire"
    if not link.exists():
        link.symlink_to(Path(kwire.__file__).resolve().parent, target_is_directory=True)
    # kwire is only imported, not compiled: mypy reads it quietly (errors there are not ours).
    paths = ["--ignore-missing-imports", "--follow-imports=silent"] + [f"{package}/{name}" for name in sorted(sources)]
    (src / "setup.py").write_text(_SETUP.format(package=package, paths=paths, group=f"{package}.{GROUP}"))
    env = dict(os.environ, MYPYPATH=str(stubs))
    command = [sys.executable, "setup.py", "build_ext", "--inplace", f"--parallel={jobs}"]
    proc = subprocess.run(command, cwd=src, env=env, capture_output=True, text=True)
    log = proc.stdout + proc.stderr
    (build_dir / "build.log").write_text(log)
    if proc.returncode != 0:
        raise CompileFailed(f"compiling {package} failed (exit {proc.returncode}); "
                            f"see {build_dir / 'build.log'}", log)
    built = compiled_extensions(src / package)
    if not built:
        raise CompileFailed(f"the build of {package} produced no extension module", log)
    return built


def compile_package(messages: list[Message], out_dir: Path, *, only: set[str] | None = None,
                    build_dir: Path | None = None, jobs: int = 2) -> CompileResult:
    """Build the compiled flavour of the package in ``out_dir`` and install it there.

    ``out_dir`` must already hold the pure-Python package (``kwire generate`` writes it); its
    directory name is the package name the extensions are built for. ``only`` limits the build
    to some definitions (by message name); the others stay pure Python.
    """
    package = out_dir.name
    if not package.isidentifier():
        raise ValueError(f"{package!r} is not a Python package name")
    sources = native_sources(messages, only)
    temp = None
    if build_dir is None:
        temp = tempfile.TemporaryDirectory(prefix="kwire-compile-")
        build_dir = Path(temp.name)
    try:
        built = build_extensions(package, sources, build_dir, jobs=jobs)
        remove_compiled(out_dir)
        installed = []
        for path in built:
            shutil.copy2(path, out_dir / path.name)
            installed.append(path.name)
    finally:
        if temp is not None:
            temp.cleanup()
    modules = sorted(name.removesuffix(".py") for name in sources if name != NATIVE_BASE)
    return CompileResult(installed, modules, build_dir)


def cached_build(messages: list[Message], package: str, cache_dir: Path, *,
                 only: set[str] | None = None) -> Path:
    """A compiled package built once per source hash under ``cache_dir``; returns its sys.path root.

    Tests and benchmarks use this to get a compiled twin of the generated package under another
    name (``package``) next to the pure one. Raises CompileUnavailable without a toolchain.
    """
    from .emit import write_package

    check_toolchain()
    pure = render_all(messages)  # the package's .py files, in the key too: they are its fallback
    root = cache_dir / source_hash({**native_sources(messages, only), **{f"pure/{k}": v for k, v in pure.items()}})
    if not (root / package).is_dir():
        staging = root.with_name(f"{root.name}.tmp{os.getpid()}")
        shutil.rmtree(staging, ignore_errors=True)
        write_package(pure, staging / package)
        compile_package(messages, staging / package, only=only, build_dir=staging / "build")
        shutil.rmtree(staging / "build")
        for old in cache_dir.iterdir():  # builds of older sources
            if old != staging:
                shutil.rmtree(old, ignore_errors=True)
        os.replace(staging, root)  # atomic: a concurrent run sees the whole build or none
    return root
