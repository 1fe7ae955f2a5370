"""The ``kwire`` command line: one sub-command per job, each in its own module.

Exit codes follow one convention everywhere: 0 success, 1 findings, failures or a refusal (a file
that exists, a lossy write), 2 bad usage or unusable input (unreadable, damaged, empty). Every
``--help`` ends with example commands (:mod:`kwire.cli.examples`). Errors are printed by
:func:`kwire.cli.errors.fail`.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Iterable

from kwire.cli.commands import SUMMARIES
from kwire.cli.examples import add_examples

# sub-command name -> module with ``register(subparsers)``. A run imports only the module of the
# command it runs: `kwire --help` lists the commands from SUMMARIES without importing any of them,
# and a missing optional dependency only affects its own command.
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
    "doctor": "kwire.cli.commands.doctor",
    "build-native": "kwire.cli.commands.build_native",
    "versions": "kwire.cli.commands.versions",
    "merge-versions": "kwire.cli.commands.merge_versions",
}


class VersionAction(argparse.Action):
    """``--version``: the version, then which parts run compiled (looked up only when asked)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from kwire.cli.commands.doctor import version_text

        print(version_text())
        parser.exit()


def build_parser(commands: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The ``kwire`` parser with the sub-commands ``commands`` built in full (None: all of them);
    every other one is listed by its summary alone, which is all ``kwire --help`` shows of it."""
    built = set(COMMANDS if commands is None else commands)
    parser = argparse.ArgumentParser(prog="kwire", description="Kafka protocol code generator and wire codec.")
    parser.add_argument("--version", action=VersionAction,
                        help="print the version and which parts run compiled (see kwire doctor), then exit")
    verbosity = parser.add_mutually_exclusive_group()
    verbosity.add_argument("-q", "--quiet", action="store_true", help="print only errors")
    verbosity.add_argument("-v", "--verbose", action="store_true", help="print more detail")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in COMMANDS.items():
        if name in built:
            importlib.import_module(module).register(sub)
        else:
            sub.add_parser(name, help=SUMMARIES[name], add_help=False)
    add_examples(parser, "")
    for name in (name for name in COMMANDS if name in built):
        command = sub.choices[name]
        add_examples(command, name)
        for nested_name, nested in _nested_by_name(command):
            add_examples(nested, f"{name} {nested_name}")
        for each in (command, *_nested(command)):  # -q/-v also work after the sub-command (and its own)
            group = each.add_mutually_exclusive_group()
            group.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                               help="print only errors")
            group.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                               help="print more detail")
    return parser


def command_named(argv: list[str]) -> str | None:
    """The sub-command ``argv`` runs: its first word that is not an option (kwire's own options
    take no value), if that word names a command."""
    word = next((word for word in argv if not word.startswith("-")), None)
    return word if word in COMMANDS else None


def _nested(command: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The sub-commands of a sub-command (``kwire storage format``)."""
    return [choice for _, choice in _nested_by_name(command)]


def _nested_by_name(command: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    return [(name, choice) for action in command._actions if isinstance(action, argparse._SubParsersAction)
            for name, choice in action.choices.items()]


def main(argv: list[str] | None = None) -> int:
    """``kwire``: Ctrl-C at any time once kwire runs (building the parser included) exits 130, the
    shell's code for an interrupt, without a traceback."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        return 130


def _main(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = command_named(argv)
    parser = build_parser([command] if command else [])
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
