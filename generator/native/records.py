"""Build the compiled record column decoders: ``kwire/records/_column_decoder_c*.so`` (the C
flavour, generated C, needs only a C compiler) and ``kwire/records/_column_decoder_mypyc*.so``.

``kwire build-native`` (in an installed kwire), ``python -m kwire.generator.native.records`` (what
``make native`` and ``make test`` run) and the compiled wheel's ``setup.py`` compile
:mod:`kwire.records.column_decoder` with mypyc as the module ``kwire.records._column_decoder_mypyc``
and put the extension files beside the source, where :mod:`kwire.records.columns` finds them.
The compiled copy differs from the source in two lines: ``COMPILED = True`` and ``BUILT_FROM``,
the source's SHA-256, by which :mod:`kwire.records.columns` refuses a stale build.

Builds are cached under ``build/record-decoder/<key>/`` (the key hashes the source, mypy's version
and the Python that builds), so a second run only checks that the installed files are the cached
ones: well under a second. A build takes about ten seconds. Without mypyc or a C compiler nothing
is built and kwire uses the same decoder as plain Python; the command says so and exits 0, or,
with ``--require`` (what ``make native`` passes under CI=true), exits 1.
"""
from __future__ import annotations

import argparse
import ast
import filecmp
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import kwire

from ..records.decoder_c import C_SOURCE
from ..records.decoder_c import MODULE as C_MODULE
from ..records.decoders import PASTE_BELOW, ColumnTarget
from .build import (
    CompileFailed,
    CompileUnavailable,
    check_toolchain,
    compiled_extensions,
    extension_suffix,
)
from .compiler import find_toolchain
from .inline import VARINT_SOURCE, PasteFailed, paste_varint, varint_definitions

PACKAGE_DIR = Path(kwire.__file__).resolve().parent / "records"
SOURCE = PACKAGE_DIR / "column_decoder.py"
RECORD_LOOP = ColumnTarget.path  # the generated record loop, pasted into SOURCE when compiled
UTF8_SOURCE = PACKAGE_DIR / "utf8_check.py"  # the loop's UTF-8 check, pasted with it
_UTF8_IMPORT = "from kwire.records.utf8_check import UTF8_VALID, utf8_error"
_METHODS_IMPORT = "    from kwire.records._generated_columns import _add_headers, _add_records"
_MARKER = "  # pasted in when compiled (native.records)"  # (the marked line fits 120 characters)
_HELPERS = "# ---- the record loop's helpers are pasted here when compiled (kwire.generator.native.records) ----"
MODULE = "_column_decoder_mypyc"
DEFAULT_CACHE = Path("build") / "record-decoder"

_SETUP = """\
from setuptools import setup
from mypyc.build import mypycify

setup(name="kwire-record-decoder", ext_modules=mypycify({args!r}, opt_level="3", debug_level="0"))
"""


def source_digest(source: bytes) -> str:
    """SHA-256 of the decoder's source, of its generated record loop and of the varint module
    pasted into it (the same as ``kwire.records.columns.source_digest``, which the runtime checks
    ``BUILT_FROM`` against)."""
    return hashlib.sha256(_pasted_sources(source)).hexdigest()


def _pasted_sources(source: bytes) -> bytes:
    """The decoder's source and the three it is pasted with, in the order the digests take them."""
    return b"\0".join([source, RECORD_LOOP.read_bytes(), UTF8_SOURCE.read_bytes(), VARINT_SOURCE.read_bytes()])


def paste_record_loop(text: str, loop: str | None = None) -> str:
    """``text`` (column_decoder.py) with the generated record loop pasted in: its two methods, indented,
    in place of the marked import in ``ColumnBuilder``, and the rest below ``PASTE_BELOW`` (the
    varint import, the helpers; not ``i64 = int``), with utf8_check.py in place of its import, in
    place of the helpers' marker line. One module, so that mypyc turns every call of the loop into
    a C call."""
    loop = RECORD_LOOP.read_text() if loop is None else loop
    if text.count(_METHODS_IMPORT + _MARKER + "\n") != 1 or text.count("\n" + _HELPERS + "\n") != 1:
        raise PasteFailed(f"expected one marked import of the record loop and one line {_HELPERS!r}")
    below = loop.split("\n" + PASTE_BELOW + "\n")
    if len(below) != 2:
        raise PasteFailed(f"{RECORD_LOOP.name} has no single line {PASTE_BELOW!r}")
    lines = below[1].split("\n")
    tree = ast.parse(below[1])
    methods = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.args.args
               and node.args.args[0].arg == "self"]
    if not methods:
        raise PasteFailed(f"{RECORD_LOOP.name} defines no method")
    first, last = methods[0].lineno - 1, methods[-1].end_lineno
    plain_i64 = "i64 = int  # not pasted: the compiled copy's i64 is mypyc's machine integer"
    kept = [line for line in lines[:first] if line != plain_i64]
    method_text = "\n".join(("    " + line) if line else "" for line in lines[first:last])
    helpers = "\n".join([*kept, *lines[last:]]).strip("\n")
    marked = _UTF8_IMPORT + _MARKER
    if helpers.count(marked) != 1:
        raise PasteFailed(f"{RECORD_LOOP.name} has no single line {marked!r}")
    banner = "# ---- pasted from kwire/records/utf8_check.py (kwire.generator.native.records): edit it there ----\n"
    utf8_check = varint_definitions(UTF8_SOURCE.read_text())
    helpers = helpers.replace(marked, banner + utf8_check + "# ---- end of utf8_check.py ----")
    text = text.replace(_METHODS_IMPORT + _MARKER, method_text, 1)
    return text.replace("\n" + _HELPERS + "\n", "\n" + helpers + "\n", 1)


def compiled_source(source: bytes) -> str:
    """The text mypyc compiles: the source with ``COMPILED = True``, the generated record loop and
    kwire.wire.varint pasted in place of their imports (see ``paste_record_loop`` and
    ``native.inline``) and the digest of all three appended."""
    text = source.decode("utf-8")
    if text.count("\nCOMPILED = False\n") != 1:
        raise CompileFailed(f"{SOURCE} has no single 'COMPILED = False' line to switch", "")
    try:
        text = paste_varint(paste_record_loop(text))
    except PasteFailed as exc:
        raise CompileFailed(f"{SOURCE}: {exc}", "") from None
    return text.replace("\nCOMPILED = False\n", "\nCOMPILED = True\n") + f'\nBUILT_FROM = "{source_digest(source)}"\n'


def build_key(source: bytes) -> str:
    import mypy.version

    digest = hashlib.sha256(_pasted_sources(source))
    digest.update(f"{mypy.version.__version__} {sys.version} {extension_suffix()}".encode())
    return digest.hexdigest()[:20]


def installed_files(package_dir: Path = PACKAGE_DIR) -> list[Path]:
    return [p for p in compiled_extensions(package_dir) if p.name.startswith((MODULE, C_MODULE))]


def build(cache: Path = DEFAULT_CACHE, *, install_dir: Path = PACKAGE_DIR, log=print) -> list[Path]:
    """Compile (or take from ``cache``) and install both flavours; return the installed paths.

    The C flavour first (it needs only a C compiler): without mypyc it is installed and then
    CompileUnavailable raised for the mypyc one, as without a C compiler for both.
    CompileFailed when a build fails.
    """
    installed = build_c(cache, install_dir=install_dir, log=log)
    return installed + build_mypyc(cache, install_dir=install_dir, log=log)


def build_c(cache: Path = DEFAULT_CACHE, *, install_dir: Path = PACKAGE_DIR, log=print) -> list[Path]:
    """Compile (or take from ``cache``) and install the C flavour: ``C_SOURCE`` with its SHA-256
    as ``BUILT_FROM``, one translation unit, linked as the interpreter links extensions."""
    toolchain = find_toolchain(mypyc=False)
    source = C_SOURCE.read_bytes()
    digest = hashlib.sha256(source).hexdigest()
    key = hashlib.sha256(source + b"\0" + toolchain.identity.encode()).hexdigest()[:20]
    name = C_MODULE + extension_suffix()
    built = cache.resolve() / f"c-{key}" / name
    if not built.is_file():
        log(f"compiling {C_SOURCE.name} (a second or two) ...")
        staging = built.parent.with_name(f"{built.parent.name}.tmp{os.getpid()}")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        obj = staging / "decoder.o"
        steps = [[*toolchain.compile, *(f"-I{d}" for d in toolchain.includes), "-O2",
                  f'-DKWIRE_BUILT_FROM="{digest}"', "-c", str(C_SOURCE), "-o", str(obj)],
                 [*toolchain.link, str(obj), "-o", str(staging / name)]]
        for command in steps:
            proc = subprocess.run(command, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                raise CompileFailed(f"compiling the C record decoder failed (exit {proc.returncode})",
                                    proc.stdout + proc.stderr)
        obj.unlink()
        for old in cache.resolve().glob("c-*"):  # builds of older sources
            if old.name != built.parent.name and ".tmp" not in old.name:
                shutil.rmtree(old, ignore_errors=True)
        try:
            os.replace(staging, built.parent)
        except OSError:  # another process installed the same build first
            if not built.is_file():
                raise
            shutil.rmtree(staging, ignore_errors=True)
    return _install([built], [p for p in installed_files(install_dir) if p.name.startswith(C_MODULE)],
                    install_dir, log)


def _install(wanted: list[Path], current: list[Path], install_dir: Path, log) -> list[Path]:
    """Put ``wanted`` in ``install_dir`` in place of ``current`` unless they are the same files."""
    if [p.name for p in current] != [p.name for p in wanted] or not all(
            filecmp.cmp(a, b, shallow=False) for a, b in zip(current, wanted, strict=True)):
        for path in current:
            path.unlink()
        for path in wanted:
            temporary = install_dir / f".{path.name}.{os.getpid()}"
            shutil.copy2(path, temporary)
            os.replace(temporary, install_dir / path.name)  # atomic: a concurrent import sees old or new
        log(f"installed {', '.join(p.name for p in wanted)} in {install_dir}")
    return [install_dir / p.name for p in wanted]


def build_mypyc(cache: Path = DEFAULT_CACHE, *, install_dir: Path = PACKAGE_DIR, log=print) -> list[Path]:
    """Compile (or take from ``cache``) and install the mypyc flavour."""
    check_toolchain()
    source = SOURCE.read_bytes()
    built = cache.resolve() / build_key(source)
    if not built.is_dir():
        log(f"compiling {SOURCE.name} with mypyc (about ten seconds) ...")
        _compile(source, built)
    wanted = sorted(built.glob("*" + extension_suffix()))
    return _install(wanted, [p for p in installed_files(install_dir) if p.name.startswith(MODULE)], install_dir, log)


def _compile(source: bytes, built: Path) -> None:
    staging = built.with_name(f"{built.name}.tmp{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    package = staging / "kwire" / "records"
    package.mkdir(parents=True)
    # Stand-in packages: mypy reads kwire's own imports (the error classes) as Any, which costs
    # nothing on an error path.
    (staging / "kwire" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / f"{MODULE}.py").write_text(compiled_source(source))
    args = ["--ignore-missing-imports", "--always-true=COMPILED", f"kwire/records/{MODULE}.py"]
    (staging / "setup.py").write_text(_SETUP.format(args=args))
    proc = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=staging,
                          capture_output=True, text=True)
    log_text = proc.stdout + proc.stderr
    if proc.returncode != 0:
        (staging / "build.log").write_text(log_text)
        raise CompileFailed(f"compiling the record decoder failed (exit {proc.returncode}); "
                            f"see {staging / 'build.log'}", log_text)
    extensions = sorted(package.glob("*" + extension_suffix()))
    if not extensions:
        raise CompileFailed("the build of the record decoder produced no extension module", log_text)
    result = staging / "result"
    result.mkdir()
    for path in extensions:
        shutil.copy2(path, result / path.name)
    if built.parent.is_dir():
        for old in built.parent.iterdir():  # builds of older sources (not another process's staging)
            if old.name != built.name and ".tmp" not in old.name and not old.name.startswith("c-"):
                shutil.rmtree(old, ignore_errors=True)
    built.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(result, built)
    except OSError:  # another process installed the same build first
        if not built.is_dir():
            raise
    shutil.rmtree(staging, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kwire.generator.native.records",
        description="Compile kwire's record column decoder with mypyc and install it beside its source.")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="build cache (default: %(default)s)")
    parser.add_argument("--remove", action="store_true", help="remove the installed build (back to plain Python)")
    parser.add_argument("--require", action="store_true",
                        help="exit 1 when mypyc or a C compiler is missing (CI: a missing toolchain is a failure)")
    parser.add_argument("-q", "--quiet", action="store_true")
    args = parser.parse_args(argv)
    say = (lambda _message: None) if args.quiet else print
    if args.remove:
        for path in installed_files():
            path.unlink()
            say(f"removed {path}")
        return 0
    try:
        build(args.cache, log=say)
    except CompileUnavailable as exc:
        if args.require:
            print(f"error: record decoder not compiled, and --require was given: {exc}", file=sys.stderr)
            return 1
        print(f"record decoder not compiled (or only its C flavour): {exc}", file=sys.stderr)
        return 0
    except CompileFailed as exc:
        print(f"error: {exc}\n{exc.log[-3000:]}", file=sys.stderr)
        return 1
    say(f"record decoder: compiled ({C_MODULE}, {MODULE})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
