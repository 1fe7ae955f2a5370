"""``kwire validate PATH...``: load and check definitions, print every problem.

Files are read as old-format input (see ``kwire.generator.definitions.loader.load_text``): what an older Kafka
release accepted is a warning here, naming the rule and the release that added it, and an error
for ``kwire generate``. Warnings go to stderr, prefixed ``warning:``, and leave the exit status 0.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kwire.cli.commands import add_command, missing_extra, plural
from kwire.cli.errors import fail
from kwire.generator.definitions.errors import DefinitionError
from kwire.generator.definitions.loader import BUILTIN_DEFINITIONS, load_definitions


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "validate",
                    description="Load definition files or directories and report every problem, one per line.")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="definition file or directory of *.json files (kwire:builtin: the definitions kwire ships)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    missing = missing_extra("generator", "jsonschema")
    if missing:
        return fail("validate", missing, 2)
    missing = [p for p in args.paths if p != BUILTIN_DEFINITIONS and not Path(p).exists()]
    if missing:
        for path in missing:
            print(f"{path}: no such file or directory", file=sys.stderr)
        return 2
    try:
        messages = load_definitions(args.paths, old_format=True)
    except DefinitionError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    if not messages:
        return fail("validate", f"no definitions (*.json files) in {', '.join(args.paths)}", 2)
    warnings = [w for m in messages for w in m.warnings]
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if not args.quiet:
        extra = f" ({plural(len(warnings), 'warning')})" if warnings else ""
        print(f"{plural(len(messages), 'definition')} valid{extra}")
    return 0
