"""``kwire generate``: write (or check) the generated codec package."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from kwire.generator.emit import render_all, stale_files, write_package
from kwire.cli.commands import plural
from kwire.generator.errors import DefinitionError
from kwire.generator.loader import load_definitions

DEFAULT_DEFS = "message_defs"
DEFAULT_OUT = "generated"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "generate", help="emit Python codecs for a directory of definitions",
        description="Generate one Python module per definition, plus an __init__.py with MESSAGES. "
                    "The output package imports only `kwire`, so it works wherever it is placed.")
    p.add_argument("--defs", default=DEFAULT_DEFS,
                   help=f"definitions directory, or kwire:builtin for the ones kwire ships (default: {DEFAULT_DEFS})")
    p.add_argument("--out", default=DEFAULT_OUT, help=f"output package directory (default: {DEFAULT_OUT})")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 listing the files that are stale")
    p.add_argument("--compile", action="store_true",
                   help="also build the package with mypyc (needs mypy and a C compiler); the .py files "
                        "stay as the fallback, the extension modules are imported in their place")
    p.add_argument("--build-dir", type=Path,
                   help="keep mypyc's build files here (default: a temporary directory)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        messages = load_definitions([args.defs])
    except DefinitionError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 2
    if not messages:
        print(f"kwire generate: no definitions (*.json files) in {args.defs}: nothing written", file=sys.stderr)
        return 2
    if not args.quiet:
        for warning in (w for m in messages for w in m.warnings):
            print(f"warning: {warning}", file=sys.stderr)
    files = render_all(messages)
    out = Path(args.out)
    if args.check:
        stale = stale_files(files, out)
        for name in stale:
            print(f"stale: {out / name}")
        if not stale and not args.quiet:
            print(f"{out} is up to date ({len(files)} files)")
        return 1 if stale else 0
    changed = write_package(files, out)
    if not args.quiet:
        print(f"{plural(len(messages), 'definition')} -> {out}: {plural(len(changed), 'file')} written or removed")
        if args.verbose:
            for name in changed:
                print(f"  {name}")
    if args.compile:
        return compile_into(messages, out, args)
    return 0


def compile_into(messages: list, out: Path, args: argparse.Namespace) -> int:
    from kwire.generator.native_build import CompileFailed, CompileUnavailable, compile_package

    if not args.quiet:
        print(f"compiling {out} with mypyc (a few minutes for the whole package) ...", flush=True)
    started = time.perf_counter()
    try:
        result = compile_package(messages, out, build_dir=args.build_dir)
    except CompileUnavailable as exc:
        print(f"kwire generate --compile: cannot compile: {exc}", file=sys.stderr)
        return 1
    except CompileFailed as exc:
        print(f"kwire generate --compile: {exc}\n{exc.log[-3000:]}", file=sys.stderr)
        return 1
    if not args.quiet:
        print(f"compiled {len(result.modules)} modules in {time.perf_counter() - started:.0f}s: "
              f"{len(result.extensions)} extension files in {out} (the .py files stay as the fallback)")
    return 0
