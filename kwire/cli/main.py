"""The ``kwire`` command line: one sub-command per job, each in its own module.

Exit codes follow one convention everywhere: 0 success, 1 findings/failures, 2 bad usage or
unreadable input.
"""
from __future__ import annotations

import argparse
import importlib
import sys

import kwire

# sub-command name -> module with ``register(subparsers)``; modules load lazily so that
# `kwire --help` stays fast and a missing optional dependency only affects its command.
COMMANDS = {
    "validate": "kwire.cli.commands.validate",
    "generate": "kwire.cli.commands.generate",
    "check-compat": "kwire.cli.commands.check_compat",
    "dump": "kwire.cli.commands.dump",
    "fuzz": "kwire.cli.commands.fuzz",
    "decode": "kwire.cli.commands.decode",
    "schemas": "kwire.cli.commands.schemas",
    "frame": "kwire.cli.commands.frame",
    "storage": "kwire.cli.commands.storage",
    "features": "kwire.cli.commands.features",
    "metadata": "kwire.cli.commands.metadata",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kwire", description="Kafka protocol code generator and wire codec.")
    parser.add_argument("--version", action=_Version, help="show the version and exit")
    verbosity = parser.add_mutually_exclusive_group()
    verbosity.add_argument("-q", "--quiet", action="store_true", help="print only errors")
    verbosity.add_argument("-v", "--verbose", action="store_true", help="print more detail")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in COMMANDS.items():
        try:
            importlib.import_module(module).register(sub)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
    for command in sub.choices.values():  # -q/-v also work after the sub-command (and its own sub-commands)
        for each in (command, *_nested(command)):
            group = each.add_mutually_exclusive_group()
            group.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS, help="print only errors")
            group.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                               help="print more detail")
    return parser


class _Version(argparse.Action):
    """``--version``: the version is looked up only when asked for (importlib.metadata is slow to load)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        parser.exit(message=f"kwire {kwire.__version__}\n")


def _nested(command: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The sub-commands of a sub-command (``kwire storage format``)."""
    return [choice for action in command._actions if isinstance(action, argparse._SubParsersAction)
            for choice in action.choices.values()]


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
