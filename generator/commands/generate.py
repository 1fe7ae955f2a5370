"""``kwire generate``: write (or check) the generated codec package."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from generator.emit import render_all, stale_files, write_package
from generator.errors import DefinitionError
from generator.loader import load_definitions

DEFAULT_DEFS = "message_defs"
DEFAULT_OUT = "generated"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "generate", help="emit Python codecs for a directory of definitions",
        description="Generate one Python module per definition, plus an __init__.py with MESSAGES. "
                    "The output package imports only `kwire`, so it works wherever it is placed.")
    p.add_argument("--defs", default=DEFAULT_DEFS, help=f"definitions directory (default: {DEFAULT_DEFS})")
    p.add_argument("--out", default=DEFAULT_OUT, help=f"output package directory (default: {DEFAULT_OUT})")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 listing the files that are stale")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        messages = load_definitions([args.defs])
    except DefinitionError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 2
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
        print(f"{len(messages)} definitions -> {out}: {len(changed)} file(s) written or removed")
        if args.verbose:
            for name in changed:
                print(f"  {name}")
    return 0
