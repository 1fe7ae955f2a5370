"""The C half of a compiled build: mypyc's C files -> extension modules, cached and in parallel.

``native.frontend`` leaves C sources and a manifest of the extension modules to make of them
(per module a shared library ``<module>__mypyc`` and a small shim ``<module>`` that imports it).
Unlike setuptools' ``build_ext``, this:

- compiles every C file once per build, even when several extensions list it (mypyc's runtime
  library is listed by every group), and links the runtime from one static archive, so each
  library takes only the runtime functions it calls;
- runs up to ``jobs`` compilers at once across all extensions, biggest file first (a build is a
  few large modules and many small ones);
- keeps every object file and library in a content-keyed cache (like ccache): the key hashes
  the compiler and its flags, the Python and mypyc it builds for, and the bytes of the source
  and of every header of the build that it includes. An unchanged module is never compiled
  again, whatever the timestamps say; entries unused for ``CACHE_DAYS`` are dropped.

Only Unix-style compilers (gcc, clang) are supported; others raise CompileUnavailable.
"""
from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

CACHE_DAYS = 7

# mypyc emits tentative definitions of its cross-group export tables in a header that every C
# file of a group includes; with one C file per module (multi_file) that is one definition per
# file, which GCC >= 10 and clang >= 11 refuse unless told to merge them (-fcommon).
EXTRA_FLAGS = ("-fcommon",)


class CompileUnavailable(Exception):
    """No mypyc or no usable C compiler here: the pure-Python package is all there is."""


class CompileFailed(Exception):
    """mypyc or the C compiler ran and failed; ``log`` has their output."""

    def __init__(self, message: str, log: str) -> None:
        super().__init__(message)
        self.log = log


def extension_suffix() -> str:
    """The file name ending of this Python's extension modules (".cpython-311-x86_64-linux-gnu.so")."""
    return sysconfig.get_config_var("EXT_SUFFIX") or ".so"


@dataclass(frozen=True)
class Toolchain:
    """How to compile, archive and link on this machine, as setuptools would."""

    compile: list[str]   # compiler and the interpreter's flags for shared-library objects
    link: list[str]      # link a shared library (an extension module)
    archive: list[str]   # make a static library
    ranlib: list[str]    # index it (empty where not needed)
    includes: list[str]  # the Python headers
    identity: str        # what else decides the output: compiler version, Python, mypyc


def _mypyc_identity() -> str:
    """mypy's version and a digest of mypyc's runtime headers (the C sources go into each key)."""
    import mypy.version
    from mypyc.build import include_dir

    digest = hashlib.sha256()
    for header in sorted(Path(include_dir()).rglob("*.h")):
        digest.update(header.name.encode() + header.read_bytes())
    return f"mypy {mypy.version.__version__} lib-rt {digest.hexdigest()[:16]}"


def find_toolchain(mypyc: bool = True) -> Toolchain:
    """The compiler setuptools would use (honouring CC, CFLAGS, LDSHARED, ...), or CompileUnavailable.
    ``mypyc=False``: for C that is not mypyc's (the record decoder's C flavour), mypyc not needed."""
    import importlib.util

    if mypyc and importlib.util.find_spec("mypyc") is None:
        raise CompileUnavailable("mypyc is not installed (pip install mypy); the pure-Python package works without it")
    try:  # setuptools first: it puts its own distutils in place of the standard library's (gone in 3.12)
        import setuptools  # noqa: F401
    except ImportError as exc:  # (no way to drive the compiler)
        raise CompileUnavailable(f"setuptools is not installed ({exc}); pip install setuptools") from None
    from distutils import ccompiler  # type: ignore[import-not-found]
    from distutils import sysconfig as dsysconfig

    compiler = ccompiler.new_compiler()
    dsysconfig.customize_compiler(compiler)
    if compiler.compiler_type != "unix":
        raise CompileUnavailable("the compiled build supports Unix-style C compilers only, "
                                 f"not {compiler.compiler_type}")
    if shutil.which(compiler.compiler_so[0]) is None:
        raise CompileUnavailable(f"no C compiler found ({compiler.compiler_so[0]!r} is not on PATH); "
                                 "the pure-Python package works without it")
    version = subprocess.run([compiler.compiler_so[0], "--version"], capture_output=True, text=True)
    includes = sorted({sysconfig.get_path("include"), sysconfig.get_path("platinclude")})
    return Toolchain(
        compile=list(compiler.compiler_so), link=list(compiler.linker_so), archive=list(compiler.archiver),
        ranlib=list(compiler.ranlib or []), includes=includes,
        identity="\n".join([shlex.join(compiler.compiler_so), shlex.join(compiler.linker_so),
                            version.stdout.strip(), sys.version, extension_suffix(),
                            _mypyc_identity() if mypyc else ""]),
    )


# --- the cache ---------------------------------------------------------------------------------

class ArtifactCache:
    """Files stored under a key (a hex digest); a hit refreshes the entry's time."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, key: str, suffix: str) -> Path:
        return self.root / key[:2] / f"{key}{suffix}"

    def get(self, key: str, suffix: str) -> Path | None:
        path = self.path(key, suffix)
        if not path.is_file():
            return None
        os.utime(path)
        return path

    def make(self, key: str, suffix: str, produce: Callable[[Path], None]) -> tuple[Path, bool]:
        """The entry, made by ``produce(tmp_path)`` if missing; also says whether it was a hit."""
        found = self.get(key, suffix)
        if found is not None:
            return found, True
        path = self.path(key, suffix)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=suffix)
        os.close(fd)
        try:
            produce(Path(tmp))
            os.replace(tmp, path)  # atomic: a concurrent build sees all of it or nothing
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return path, False

    def prune(self, max_age_days: float = CACHE_DAYS) -> int:
        """Remove entries not used for ``max_age_days``; return how many."""
        if not self.root.is_dir():
            return 0
        cutoff = time.time() - max_age_days * 86400
        removed = 0
        for path in self.root.glob("*/*"):
            if path.stat().st_mtime < cutoff:
                path.unlink()
                removed += 1
        return removed


def write_if_changed(path: Path, text: str) -> None:
    # unchanged files keep their time stamps, which mypy's incremental cache looks at first
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)


def digest(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "big") + data)
    return h.hexdigest()[:40]


_INCLUDE = re.compile(rb'^\s*#\s*include\s+(?:"([^"]+)"|<([^>]+)>)', re.M)


def local_headers(source: Path, search: list[Path], *within: Path) -> list[Path]:
    """The headers under the ``within`` directories that ``source`` includes, directly or not,
    as the compiler finds them (quoted: the includer's directory first, then ``search``; angled:
    ``search``). Headers elsewhere (Python's) are neither listed nor read."""
    found: list[Path] = []
    seen: set[Path] = set()
    todo = [source]
    while todo:
        current = todo.pop()
        for quoted, angled in _INCLUDE.findall(current.read_bytes()):
            name = (quoted or angled).decode()
            bases = ([current.parent] if quoted else []) + search
            for base in bases:
                candidate = (base / name).resolve()
                if candidate.is_file():
                    if candidate not in seen and any(candidate.is_relative_to(w) for w in within):
                        seen.add(candidate)
                        found.append(candidate)
                        todo.append(candidate)
                    break
    return sorted(found)


# --- the build --------------------------------------------------------------------------------

@dataclass
class Extension:
    """One extension module of the manifest."""

    name: str             # dotted module name, e.g. pkg.api_versions_response__mypyc
    sources: list[Path]
    include_dirs: list[Path]
    flags: list[str]

    @property
    def is_shim(self) -> bool:
        """The module's own small extension, which only imports its group's library."""
        return len(self.sources) == 1 and not self.sources[0].name.startswith("__native")

    def own_sources(self) -> list[Path]:
        # mypyc names every C file it generates __native*; the rest is its runtime library
        return list(self.sources) if self.is_shim else [s for s in self.sources if s.name.startswith("__native")]

    def runtime_sources(self) -> list[Path]:
        own = self.own_sources()
        return [s for s in self.sources if s not in own]


@dataclass
class BuildStats:
    c_files: int = 0
    compiled: list[str] = field(default_factory=list)  # C files compiled now; the others came from the cache
    linked: list[str] = field(default_factory=list)    # extensions linked now


@dataclass
class _Object:
    source: Path
    key: str
    command: list[str]    # without the output file
    headers: list[Path]   # the build's own headers it includes
    size: int             # bytes of C to compile: the source's, and those of the C files it includes


class CBuild:
    """Compile and link the extensions of one manifest into a package directory."""

    def __init__(self, toolchain: Toolchain, cache: ArtifactCache, c_dir: Path, *, jobs: int,
                 log: Callable[[str], None], progress: Callable[[str], None]) -> None:
        self.toolchain, self.cache, self.c_dir, self.jobs = toolchain, cache, c_dir.resolve(), jobs
        self.log, self.progress = log, progress
        self.stats = BuildStats()
        from mypyc.build import include_dir

        self.runtime_dir = Path(include_dir()).resolve()  # mypyc's runtime library (lib-rt)
        self.optional_runtime = optional_runtime_sources()

    def build(self, extensions: list[Extension], out_dir: Path) -> list[Path]:
        """Build every extension into ``out_dir``; return the files written there."""
        # mypyc writes a module's C file at the top of its output directory but includes its
        # group's headers, written in the package's subdirectory, by bare name: the directories
        # of all group headers go on the include path.
        header_dirs = sorted({s.parent for e in extensions for s in e.own_sources() if s.parent != self.c_dir})
        objects: dict[Path, _Object] = {}
        runtime: set[Path] = set()
        units = {ext.name: self.translation_units(ext) for ext in extensions}
        shim_flags = next((ext.flags for ext in extensions if ext.is_shim), None)
        python_h = self.precompiled_python_header(shim_flags) if shim_flags is not None else None
        for ext in extensions:
            include_dirs = [*ext.include_dirs, *header_dirs]
            first = (python_h,) if ext.is_shim and python_h is not None and ext.flags == shim_flags else ()
            for source in [*units[ext.name], *ext.runtime_sources()]:
                if source not in objects:
                    objects[source] = self.object_for(source, include_dirs, ext.flags, first)
            runtime.update(ext.runtime_sources())
            # On a rebuild mypyc lists only the optional runtime sources that the modules it
            # translated again need; those of the others are named by the headers their C includes.
            for source in units[ext.name]:
                for header in objects[source].headers:
                    if not header.is_relative_to(self.runtime_dir):
                        continue
                    relative = header.relative_to(self.runtime_dir).with_suffix(".c")
                    if relative.as_posix() not in self.optional_runtime:
                        continue
                    places = (self.c_dir / relative, self.runtime_dir / relative)
                    needed = next((p for p in places if p.is_file()), None)
                    if needed is None:
                        continue
                    if needed not in objects:
                        objects[needed] = self.object_for(needed, include_dirs, ext.flags)
                    runtime.add(needed)
        self.stats.c_files = len(objects)
        self.compile_all(list(objects.values()))
        archive = self.archive([objects[s] for s in sorted(runtime)]) if runtime else None
        with ThreadPoolExecutor(self.jobs) as pool:
            futures = [pool.submit(self.link, ext, [objects[s] for s in units[ext.name]],
                                   None if ext.is_shim else archive, out_dir)
                       for ext in extensions]
            return [f.result() for f in futures]

    def translation_units(self, ext: Extension) -> list[Path]:
        """The C files compiled for ``ext``'s own code. A module's functions and its group's init
        file are compiled as one file that includes both: each file costs the compiler ~0.15 s
        for Python's and mypyc's headers alone, 43 s of CPU for the whole protocol's 287 modules."""
        own = ext.own_sources()
        if len(own) < 2:
            return own
        unit = self.c_dir / "units" / f"{ext.name}.c"
        unit.parent.mkdir(exist_ok=True)
        # relative to the unit, so that the cache key does not depend on where the build is
        write_if_changed(unit, "".join(f'#include "{os.path.relpath(source, unit.parent)}"\n' for source in own))
        return [unit]

    def precompiled_python_header(self, flags: list[str]) -> Path | None:
        """A directory holding ``Python.h`` precompiled (GCC) for ``flags``, searched first by
        the modules' shims, which include nothing else: each compiles in 0.04 s instead of
        0.12 s. None where the compiler is not GCC, whose scheme this is; the shims then parse
        the header as before (as GCC itself does with a precompiled header it cannot use)."""
        if "Free Software Foundation" not in self.toolchain.identity:
            return None
        header = next((Path(d) / "Python.h" for d in self.toolchain.includes if (Path(d) / "Python.h").is_file()), None)
        if header is None:
            return None
        flags = [*flags, *EXTRA_FLAGS]
        includes = [f"-I{d}" for d in self.toolchain.includes]
        key = digest("pch", self.toolchain.identity, shlex.join(flags), header.read_bytes())
        try:
            gch, _ = self.cache.make(key, ".gch", lambda tmp: self.run(
                [*self.toolchain.compile, *includes, "-x", "c-header", str(header), "-o", str(tmp), *flags],
                "precompiling Python.h"))
        except CompileFailed as exc:  # logged by run(); the shims compile without it
            self.log(f"{exc}: the shims parse Python.h themselves")
            return None
        directory = self.c_dir / "precompiled"
        directory.mkdir(exist_ok=True)
        target = directory / "Python.h.gch"
        if not target.is_file() or target.read_bytes() != gch.read_bytes():
            shutil.copyfile(gch, target)
        return directory

    def object_for(self, source: Path, include_dirs: list[Path], flags: list[str],
                   searched_first: tuple[Path, ...] = ()) -> _Object:
        flags = [*flags, *EXTRA_FLAGS]
        # searched_first (a precompiled header) stays out of the key: the key's flags and the
        # toolchain decide the object, with or without it
        command = [*self.toolchain.compile, *(f"-I{d}" for d in [*searched_first, *include_dirs]),
                   *(f"-I{d}" for d in self.toolchain.includes), "-c", str(source), *flags]
        headers = local_headers(source, include_dirs, self.c_dir, self.runtime_dir)
        # mypyc's own headers are in the toolchain's identity; those of the build go in the key
        own = [h for h in headers if h.is_relative_to(self.c_dir)]
        key = digest(self.toolchain.identity, shlex.join(flags), source.name, source.read_bytes(),
                     *(part for h in own for part in (str(h.relative_to(self.c_dir)), h.read_bytes())))
        size = sum(path.stat().st_size for path in [source, *own] if path.suffix == ".c")  # a unit's too
        return _Object(source, key, command, headers, size)

    def compile_all(self, objects: list[_Object]) -> None:
        """Compile what the cache lacks, biggest source first."""
        missing = sorted((o for o in objects if self.cache.get(o.key, ".o") is None),
                         key=lambda o: o.size, reverse=True)
        if not missing:
            return
        self.progress(f"compiling {len(missing)} of {len(objects)} C files, {self.jobs} at a time "
                      f"(the others are cached)")
        step = max(1, len(missing) // 10)
        with ThreadPoolExecutor(self.jobs) as pool:
            for done, obj in enumerate(pool.map(self.compile_one, missing), 1):
                self.stats.compiled.append(obj.source.name)
                if done % step == 0 and done < len(missing):
                    self.progress(f"  {done}/{len(missing)} compiled")

    def compile_one(self, obj: _Object) -> _Object:
        self.cache.make(obj.key, ".o", lambda tmp: self.run([*obj.command, "-o", str(tmp)], f"compiling {obj.source}"))
        return obj

    def archive(self, runtime: list[_Object]) -> Path:
        runtime = list({o.key: o for o in runtime}.values())  # a file mypyc copied and its original
        key = digest("archive", self.toolchain.identity, *(o.key for o in runtime))

        def produce(tmp: Path) -> None:
            tmp.unlink()  # ar would add to the empty file mkstemp made
            self.run([*self.toolchain.archive, str(tmp), *(str(self.cache.path(o.key, ".o")) for o in runtime)],
                     "archiving mypyc's runtime")
            if self.toolchain.ranlib:
                self.run([*self.toolchain.ranlib, str(tmp)], "indexing mypyc's runtime archive")

        return self.cache.make(key, ".a", produce)[0]

    def link(self, ext: Extension, own: list[_Object], archive: Path | None, out_dir: Path) -> Path:
        inputs = [self.cache.path(o.key, ".o") for o in own] + ([archive] if archive else [])
        suffix = extension_suffix()
        key = digest("link", self.toolchain.identity, ext.name, *(p.name for p in inputs))
        library, hit = self.cache.make(
            key, suffix, lambda tmp: self.run([*self.toolchain.link, *map(str, inputs), "-o", str(tmp)],
                                              f"linking {ext.name}"))
        if not hit:
            self.stats.linked.append(ext.name)
        target = out_dir / (ext.name.rsplit(".", 1)[-1] + suffix)  # the package is flat
        shutil.copyfile(library, target)
        return target

    def run(self, command: list[str], what: str) -> None:
        proc = subprocess.run(command, capture_output=True, text=True)
        output = (proc.stdout + proc.stderr).strip()
        if output or proc.returncode:
            self.log(f"$ {shlex.join(command)}\n{output}\n")
        if proc.returncode != 0:
            raise CompileFailed(f"{what} failed (exit {proc.returncode})", f"$ {shlex.join(command)}\n{output}")


def optional_runtime_sources() -> set[str]:
    """The runtime C files mypyc adds to a build only when some module needs them
    (``bytes_extra_ops.c``, ...), relative to its runtime directory."""
    try:
        from mypyc.ir import deps
    except ImportError:  # an older mypyc: rebuilds then rely on what it lists
        return set()
    return {dep.path for dep in vars(deps).values() if isinstance(dep, deps.SourceDep)}


def parse_manifest(manifest: dict, base: Path) -> list[Extension]:
    """The manifest's extensions, paths made absolute against the directory mypyc ran in."""
    def absolute(p: str) -> Path:
        return (base / p).resolve()

    return [Extension(e["name"], [absolute(s) for s in e["sources"]], [absolute(d) for d in e["include_dirs"]],
                      list(e["flags"])) for e in manifest["extensions"]]


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
