"""``kwire generate``: write (or check) the generated codec package.

Exit codes: 0 written (or up to date), 1 definitions that break Kafka's rules (as ``kwire
validate`` reports them), stale files with ``--check``, a refusal to replace a file kwire did not
generate, a ``--compile`` that cannot or need not run (no mypyc or C compiler, a failed build, no
definition on the hot path), 2 bad usage (no such --defs, no definitions in it).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kwire.cli.commands import add_command, missing_extra, plural
from kwire.cli.errors import fail
from kwire.generator.definitions.errors import DefinitionError
from kwire.generator.definitions.loader import BUILTIN_DEFINITIONS, load_definitions
from kwire.generator.emit import render_all, stale_files
from kwire.generator.native.build import DEFAULT_OPT_LEVEL, none_compiled_by_default, write_sources
from kwire.wire.files import ExistingFileError

DEFAULT_DEFS = "message_defs"
DEFAULT_OUT = "generated"
DEFAULT_BUILD_DIR = Path("build") / "kwire-compile"


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub, "generate",
        description="Generate one Python module per definition, the package's index (_index.py: every API, "
                    "record type and header version, naming modules without importing them) and an __init__.py "
                    "with MESSAGES and APIS. The output package imports only `kwire`, so it works wherever it is "
                    "placed.")
    p.add_argument("--defs", default=DEFAULT_DEFS,
                   help=f"definitions directory, or kwire:builtin for the ones kwire ships (default: {DEFAULT_DEFS})")
    p.add_argument("--out", default=DEFAULT_OUT, help=f"output package directory (default: {DEFAULT_OUT})")
    p.add_argument("--force", action="store_true",
                   help="replace or remove files in --out that kwire did not generate (files an earlier run "
                        "generated are always brought up to date)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 listing the files that are stale")
    p.add_argument("--compile", nargs="?", const="hot", choices=("hot", "all"), metavar="{hot,all}",
                   help="also build the package with mypyc (needs mypy and a C compiler); the .py files "
                        "stay as the fallback, the extension modules are imported in their place. "
                        "--compile (or --compile hot) builds the modules on the hot path, whose code is "
                        "written for the compiler and runs 1.3-3.5x as fast compiled (benchmarks/README.md); "
                        "--compile all builds every module (the others gain a few percent, for most of the "
                        "build's time)")
    p.add_argument("--build-dir", type=Path,
                   help="mypyc's C files and the cache of compiled objects, kept so that a rebuild compiles "
                        f"only what changed (default: {DEFAULT_BUILD_DIR}/<package>)")
    p.add_argument("--package", metavar="NAME",
                   help="import name of the output package when it lives inside another package, "
                        "e.g. myapp.codecs (default: the --out directory's name)")
    p.add_argument("-j", "--jobs", type=int, metavar="N",
                   help="C compilers to run at once (default: the number of CPU cores)")
    p.add_argument("--opt-level", choices=("0", "1", "2", "3"), default=DEFAULT_OPT_LEVEL,
                   help="the C compiler's -O level (default: %(default)s; lower compiles faster, runs slower)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    missing = missing_extra("generator", "jinja2", "jsonschema")
    if missing:
        return fail("generate", missing, 2)
    if args.defs != BUILTIN_DEFINITIONS and not Path(args.defs).exists():
        hint = (f"; --defs {BUILTIN_DEFINITIONS} generates the definitions kwire ships"
                if args.defs == DEFAULT_DEFS else "")
        return fail("generate", f"{args.defs}: no such file or directory{hint}", 2)
    try:
        messages = load_definitions([args.defs])
    except DefinitionError as exc:  # the same findings, and the same exit status, as kwire validate
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    if not messages:
        return fail("generate", f"no definitions (*.json files) in {args.defs}: nothing written", 2)
    if not args.quiet:
        for warning in (w for m in messages for w in m.warnings):
            print(f"warning: {warning}", file=sys.stderr)
    files = render_all(messages)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        return fail("generate", f"{out} is a file: --out names the package directory to write", 2)
    if args.check:
        stale = stale_files(files, out)
        for name in stale:
            print(f"stale: {out / name}")
        if not stale and not args.quiet:
            print(f"{out} is up to date ({len(files)} files)")
        return 1 if stale else 0
    try:
        changed = write_sources(files, out, force=args.force)
    except ExistingFileError as err:
        return fail("generate", f"refused: {err.path} exists and kwire did not generate it "
                                f"(use --force to replace it)", 1)
    except OSError as err:  # --out is a file, or not writable
        return fail("generate", f"cannot write {err.filename or out}: {err.strerror or err}", 2)
    if not args.quiet:
        print(f"{plural(len(messages), 'definition')} -> {out}: {plural(len(changed), 'file')} written or removed")
        if args.verbose:
            for name in changed:
                print(f"  {name}")
    if args.compile:
        return compile_into(messages, out, args)
    return 0


def compile_into(messages: list, out: Path, args: argparse.Namespace) -> int:
    from kwire.generator.native.build import CompileFailed, CompileUnavailable, compile_package

    package = args.package or out.name
    build_dir = args.build_dir or DEFAULT_BUILD_DIR / package
    if args.jobs is not None and args.jobs < 1:
        return fail("generate", "--jobs must be at least 1", 2)
    say = (lambda message: None) if args.quiet else (lambda message: print(message, flush=True))
    only = {m.name for m in messages} if args.compile == "all" else None  # None: the hot path
    if only is None and none_compiled_by_default(messages):  # refused before anything is said or built
        print(f"kwire generate --compile: no definition in {args.defs} is on the hot path, "
              "so nothing is compiled (the plain modules run about as fast); --compile all compiles them anyway",
              file=sys.stderr)
        return 1
    say(f"compiling {out} as {package} with mypyc (build files in {build_dir}) ...")
    try:
        result = compile_package(messages, out, package=package, build_dir=build_dir, jobs=args.jobs,
                                 only=only, opt_level=args.opt_level, progress=say)
    except CompileUnavailable as exc:
        return fail("generate --compile", f"cannot compile: {exc}", 1)
    except (CompileFailed, ValueError) as exc:
        log = getattr(exc, "log", "")
        print(f"kwire generate --compile: {exc}" + (f"\n{log[-3000:]}" if log else ""), file=sys.stderr)
        return 1
    say(f"compiled {plural(len(result.modules), 'module')} in {result.seconds:.0f}s "
        f"(mypyc {result.translate_seconds:.0f}s, C {result.c_seconds:.0f}s; {result.cpu_seconds:.0f}s of CPU, "
        f"{result.jobs} at a time; {result.c_compiled} of {result.c_files} C files compiled, the rest cached): "
        f"{len(result.extensions)} extension files in {out} (the .py files stay as the fallback)")
    others = len(messages) - len(result.modules)
    if others:
        say(f"{plural(others, 'module')} off the hot path stay plain Python, which runs them about as fast "
            "(--compile all builds them too)")
    return 0
