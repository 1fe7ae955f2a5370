"""Build the optional compiled (mypyc) flavour of a generated package.

``kwire generate --compile`` first writes the pure-Python package as usual, then calls
:func:`compile_package`, which:

1. renders the same definitions with ``native=True`` (reads shaped for compiled code), with
   ``kwire/wire/struct_base.py`` copied in as ``_base.py`` so that the base class is native too (and,
   where a compiled module reads a records field, a native ``RecordsView`` as ``_records_view.py``), and
   stages them in a build directory (only files whose text changed are rewritten);
2. has mypyc type-check them and translate them to C, one library per module
   (``native.frontend``, a child process; mypy's incremental cache skips unchanged modules);
3. compiles and links the C with up to ``jobs`` compilers at once, taking every object file and
   library it has built before from a content-keyed cache in the build directory
   (``native.compiler``);
4. puts the extension modules (per module ``<name>.so`` and its library ``<name>__mypyc.so``)
   next to the ``.py`` files of the output package.

Python imports an extension module in preference to the ``.py`` of the same name, so the
compiled modules take over when present; remove them (or regenerate with changes, which does)
and the pure-Python package is back. Nothing of kwire itself is built in place.

Keep the build directory between builds: a rebuild after a change to some definitions
translates and compiles only those modules (and everything if the emitter or mypyc changed).
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import kwire
from kwire.wire import struct_base

from ..definitions.model import Message
from ..emit import module_name, render_all, write_package
from ..emit.plan import compiled_by_default
from .compiler import (
    ArtifactCache,
    CBuild,
    CompileFailed,
    CompileUnavailable,
    Toolchain,
    available_cores,
    extension_suffix,
    find_toolchain,
    parse_manifest,
    write_if_changed,
)
from .inline import paste_varint, records_view_source

__all__ = ["CompileFailed", "CompileUnavailable", "CompileResult", "DEFAULT_OPT_LEVEL", "build_extensions",
           "cached_build", "check_toolchain", "compile_package", "compiled_extensions", "extension_suffix",
           "native_package", "native_sources", "none_compiled_by_default", "remove_compiled", "source_hash",
           "write_sources"]

# The C compiler's -O level: for mypyc's C, -O1 costs little speed for much less compile time
# (benchmarks/README.md, "Figures behind design choices").
DEFAULT_OPT_LEVEL = "1"

_FRONTEND = Path(__file__).with_name("frontend.py")  # run as a script: needs only mypy


@dataclass
class CompileResult:
    extensions: list[str]     # file names copied into the output package
    modules: list[str]        # generated modules compiled (without the base module)
    build_dir: Path
    jobs: int                 # compilers run at once
    c_files: int              # C files of the build
    c_compiled: int           # of which compiled this time (the others came from the cache)
    translate_seconds: float  # wall time of mypy + mypyc
    c_seconds: float          # wall time of compiling and linking
    cpu_seconds: float        # user + sys time of every process the build ran

    @property
    def seconds(self) -> float:
        return self.translate_seconds + self.c_seconds


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


def write_sources(files: dict[str, str], out_dir: Path, *, force: bool = False) -> list[str]:
    """:func:`~kwire.generator.emit.write_package`, then, when a source changed, drop the compiled
    modules beside them: they would shadow the new sources (``kwire generate --compile`` builds
    them again). Returns the names written or removed."""
    changed = write_package(files, out_dir, force=force)
    if changed:
        changed += remove_compiled(out_dir)
    return changed


# The compiled build's copy of kwire/wire/struct_base.py (see there for why it is copied).
NATIVE_BASE = "_base.py"
# ... and its native RecordsView, compiled beside it where a compiled module reads a records field
NATIVE_RECORDS_VIEW = "_records_view.py"
NATIVE_SUPPORT = (NATIVE_BASE, NATIVE_RECORDS_VIEW)
_VIEW_IMPORT = f"from .{NATIVE_RECORDS_VIEW.removesuffix('.py')} import"


def native_package(messages: list[Message]) -> dict[str, str]:
    """File name -> content of the whole package in the flavour mypyc compiles: the emitter's
    modules (``render_all(native=True)``) and ``_base.py``, the base class with kwire.wire.varint
    pasted in (it is compiled alone and would call varint as plain Python)."""
    files = render_all(messages, native=True)
    files[NATIVE_BASE] = paste_varint(Path(struct_base.__file__).read_text())
    files[NATIVE_RECORDS_VIEW] = records_view_source()
    return files


def check_toolchain() -> Toolchain:
    """The C toolchain; raises CompileUnavailable unless mypyc and a C compiler are present."""
    return find_toolchain()


def none_compiled_by_default(messages: list[Message]) -> bool:
    """Whether no definition of ``messages`` is on the hot path, so a default build compiles none."""
    return not any(map(compiled_by_default, messages))


def native_sources(messages: list[Message], only: set[str] | None = None) -> dict[str, str]:
    """File name -> source of the modules to compile (the base module always among them): those
    of the messages named in ``only``, by default those on the hot path (``compiled_by_default``,
    where compiling pays; the others run about as fast as plain Python). Raises ValueError when
    ``only`` names a message not among ``messages``, or is None and none is on the hot path."""
    if only is None and none_compiled_by_default(messages):
        raise ValueError("no definition is on the hot path, so none is compiled by default; "
                         "name the messages to compile (only=...)")
    files = native_package(messages)
    names = {f"{module_name(m)}.py" for m in messages if (compiled_by_default(m) if only is None else m.name in only)}
    if only is not None and len(names) != len(only):
        known = {m.name for m in messages}
        raise ValueError(f"no such definitions: {', '.join(sorted(only - known))}")
    chosen = {name: text for name, text in files.items() if name in names or name == NATIVE_BASE}
    # the native RecordsView only where a compiled module makes views
    if any(_VIEW_IMPORT in text for text in chosen.values()):
        chosen[NATIVE_RECORDS_VIEW] = files[NATIVE_RECORDS_VIEW]
    return chosen


def source_hash(sources: dict[str, str]) -> str:
    """A key for a build: the sources, the mypy/mypyc version and the Python that builds."""
    import mypy.version

    digest = hashlib.sha256()
    digest.update(f"{mypy.version.__version__} {sys.version} {extension_suffix()}".encode())
    for name in sorted(sources):
        digest.update(name.encode() + b"\0" + sources[name].encode() + b"\0")
    return digest.hexdigest()[:20]


# --- staging -----------------------------------------------------------------------------------

def _link(link: Path, target: Path) -> None:
    if link.is_symlink() and link.resolve() == target.resolve():
        return
    if link.is_symlink() or link.is_file():
        link.unlink()
    elif link.is_dir():
        shutil.rmtree(link)
    link.symlink_to(target, target_is_directory=target.is_dir())


def stage_sources(package: str, sources: dict[str, str], build_dir: Path) -> tuple[Path, list[str], dict[str, str]]:
    """Lay out ``sources`` as package ``package`` for mypy: (the directory to run in, the paths
    to compile relative to it, the environment mypy needs)."""
    src = build_dir / "src"
    parts = package.split(".")
    package_dir = src.joinpath(*parts)
    package_dir.mkdir(parents=True, exist_ok=True)
    kwire_dir = Path(kwire.__file__).resolve().parent
    env = dict(os.environ)
    if parts[0] == "kwire":
        # a package inside kwire (the wheel's kwire.generated): the rest of kwire beside it, read
        # by mypy, not compiled
        inside = parts[1] if len(parts) > 1 else None
        for entry in kwire_dir.iterdir():
            if entry.name not in (inside, "__pycache__"):
                _link(src / "kwire" / entry.name, entry)
    else:
        # mypy must see kwire's sources (the generated code imports them), and nothing else of
        # the checkout: a directory with only a link to the kwire package
        stubs = build_dir / "mypypath"
        stubs.mkdir(exist_ok=True)
        _link(stubs / "kwire", kwire_dir)
        env["MYPYPATH"] = str(stubs)
    for depth in range(1, len(parts)):
        init = src.joinpath(*parts[:depth], "__init__.py")
        if not init.exists():
            init.write_text("")
    write_if_changed(package_dir / "__init__.py", "")  # the real __init__ is not compiled
    for name, text in sources.items():
        write_if_changed(package_dir / name, text)
    for stale in package_dir.glob("*.py"):
        if stale.name not in sources and stale.name != "__init__.py":
            stale.unlink()
    relative = "/".join(parts)
    return src, [f"{relative}/{name}" for name in sorted(sources)], env


# --- the build ---------------------------------------------------------------------------------

def _child_cpu() -> float:
    t = os.times()
    return t.children_user + t.children_system


def translate(src: Path, paths: list[str], env: dict[str, str], build_dir: Path, opt_level: str,
              log: Callable[[str], None]) -> list:
    """mypy + mypyc in a child process; returns the extensions of the manifest it writes."""
    request = {
        "mypy_args": ["--ignore-missing-imports", "--follow-imports=silent",  # kwire is read, not compiled
                      "--cache-dir", str((build_dir / "mypy-cache").resolve())],
        "paths": paths, "opt_level": opt_level,
        "target_dir": str((build_dir / "c").resolve()), "manifest": str((build_dir / "manifest.json").resolve()),
    }
    (build_dir / "request.json").write_text(json.dumps(request, indent=1))
    for _attempt in (1, 2):
        proc = subprocess.run([sys.executable, str(_FRONTEND), str((build_dir / "request.json").resolve())],
                              cwd=src, env=env, capture_output=True, text=True)
        log(f"$ mypyc ({len(paths)} modules)\n{proc.stdout}{proc.stderr}")
        if proc.returncode != 0:
            raise CompileFailed(f"mypyc failed (exit {proc.returncode})", proc.stdout + proc.stderr)
        extensions = parse_manifest(json.loads((build_dir / "manifest.json").read_text()), src)
        if all(s.is_file() for e in extensions for s in e.sources):
            return extensions
        # mypy's cache says modules are unchanged but their C files are gone: start afresh
        shutil.rmtree(build_dir / "mypy-cache", ignore_errors=True)
    raise CompileFailed("mypyc did not write the C files it listed", proc.stdout + proc.stderr)


def build_extensions(package: str, sources: dict[str, str], build_dir: Path, *, jobs: int | None = None,
                     opt_level: str = DEFAULT_OPT_LEVEL, progress: Callable[[str], None] | None = None,
                     ) -> tuple[list[Path], CompileResult]:
    """Compile ``sources`` as package ``package`` in ``build_dir``; return the extension files
    (under ``build_dir/out``) and what the build did."""
    toolchain = find_toolchain()
    jobs = jobs or available_cores()
    say = progress or (lambda message: None)
    build_dir.mkdir(parents=True, exist_ok=True)
    log_path = build_dir / "build.log"
    log_path.write_text("")

    def log(text: str) -> None:
        with log_path.open("a") as f:
            f.write(text.rstrip() + "\n")

    cpu, started = _child_cpu(), time.perf_counter()
    src, paths, env = stage_sources(package, sources, build_dir)
    modules = len(paths) - len(set(NATIVE_SUPPORT) & set(sources))
    say(f"mypyc: type-checking and translating {modules} modules to C ...")
    try:
        extensions = translate(src, paths, env, build_dir, opt_level, log)
        translated = time.perf_counter()
        out = build_dir / "out"
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()
        cache = ArtifactCache(build_dir / "cache")
        c_build = CBuild(toolchain, cache, build_dir / "c", jobs=jobs, log=log, progress=say)
        built = c_build.build(extensions, out)
        cache.prune()
    except CompileFailed as exc:
        raise CompileFailed(f"compiling {package}: {exc}; see {log_path}", exc.log) from None
    finished = time.perf_counter()
    if not built:
        raise CompileFailed(f"the build of {package} produced no extension module", log_path.read_text())
    return built, CompileResult(
        extensions=[p.name for p in built], modules=[], build_dir=build_dir, jobs=jobs,
        c_files=c_build.stats.c_files, c_compiled=len(c_build.stats.compiled),
        translate_seconds=translated - started, c_seconds=finished - translated, cpu_seconds=_child_cpu() - cpu)


def compile_package(messages: list[Message], out_dir: Path, *, package: str | None = None,
                    only: set[str] | None = None, build_dir: Path | None = None, jobs: int | None = None,
                    opt_level: str = DEFAULT_OPT_LEVEL,
                    progress: Callable[[str], None] | None = None) -> CompileResult:
    """Build the compiled flavour of the package in ``out_dir`` and install it there.

    ``out_dir`` must already hold the pure-Python package (``kwire generate`` writes it).
    ``package`` is its import name (default: the directory's name; dotted for a package inside
    another, such as ``kwire.generated``). ``only`` names the definitions to compile (by message
    name; default: those on the hot path, see :func:`native_sources`); the others stay pure
    Python. Without ``build_dir`` the build happens in a
    temporary directory, so nothing is reused next time.
    """
    package = package or out_dir.name
    if not all(part.isidentifier() for part in package.split(".")):
        raise ValueError(f"{package!r} is not a Python package name")
    sources = native_sources(messages, only)
    with contextlib.ExitStack() as stack:
        if build_dir is None:
            build_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kwire-compile-")))
        stack.enter_context(_locked(build_dir / ".lock"))  # two builds in one directory would collide
        built, result = build_extensions(package, sources, build_dir, jobs=jobs, opt_level=opt_level,
                                         progress=progress)
        remove_compiled(out_dir)
        for path in built:
            temporary = out_dir / f".{path.name}.{os.getpid()}"
            shutil.copy2(path, temporary)
            os.replace(temporary, out_dir / path.name)  # an import meanwhile sees no half-written file
    result.modules = sorted(name.removesuffix(".py") for name in sources if name not in NATIVE_SUPPORT)
    return result


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One process at a time (a build directory, or pytest-xdist workers asking for one build)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def cached_build(messages: list[Message], package: str, cache_dir: Path, *,
                 only: set[str] | None = None) -> Path:
    """A compiled package built once per source hash under ``cache_dir``; returns its sys.path root.

    Tests and benchmarks use this to get a compiled twin of the generated package under another
    name (``package``) next to the pure one; ``only`` as for :func:`compile_package` (by default
    the modules on the hot path). Raises CompileUnavailable without a toolchain.
    The build directory ``cache_dir/.build`` is kept, so new sources rebuild only what changed.
    """
    check_toolchain()
    pure = render_all(messages)  # the package's .py files, in the key too: they are its fallback
    root = cache_dir / source_hash({**native_sources(messages, only), **{f"pure/{k}": v for k, v in pure.items()},
                                    "-O": DEFAULT_OPT_LEVEL})
    with _locked(cache_dir / ".lock"):
        if not (root / package).is_dir():
            staging = root.with_name(f"{root.name}.tmp{os.getpid()}")
            shutil.rmtree(staging, ignore_errors=True)
            write_package(pure, staging / package)
            compile_package(messages, staging / package, only=only, build_dir=cache_dir / ".build")
            for old in cache_dir.iterdir():  # builds of older sources
                if old not in (staging, cache_dir / ".build", cache_dir / ".lock"):
                    shutil.rmtree(old, ignore_errors=True)
            os.replace(staging, root)
    return root
