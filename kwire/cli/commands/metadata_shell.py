"""``kwire metadata shell PATH [COMMAND ...]``: Kafka's metadata shell over the image of a log.

The image (:func:`kwire.metadata.loader.load_image`) laid out as Kafka 3.9's ``kafka-metadata-shell``
lays it out (``/image/topics/byName/NAME/0``), with its commands and messages
(:mod:`kwire.metadata.shell`). With a command: run it and exit (``cd``, ``pwd`` and ``history`` are
for the interactive shell only, as in Kafka); without one: read commands from stdin, one a line.

Exit codes: 0 done, 1 a path named that does not exist (one-shot), 2 bad usage or unreadable input.
"""
from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys

from kwire.cli.commands import add_command, replay_arguments
from kwire.cli.errors import fail
from kwire.wire.errors import KwireError


def register_shell(commands: argparse._SubParsersAction) -> None:
    s = add_command(
        commands, "shell", summary="Kafka's metadata shell: ls, cd, cat, find, tree, pwd, history over the image",
        exit_status="0 done, 1 a path that does not exist (with COMMAND), 2 bad usage or unreadable input.",
        description="The metadata image of a log directory, snapshot or segment, as Kafka's kafka-metadata-shell "
                    "lays it out (/image/topics/byName/NAME/0, /image/cluster/brokers/1, /image/features/...) "
                    "and prints it. With COMMAND: run it and exit. Without: a shell reading commands from stdin "
                    "(ls, cd, cat, find, tree, pwd, history, help, exit). Paths take Kafka's globs: * ? {a,b}.")
    s.add_argument("path", metavar="PATH",
                   help="a __cluster_metadata-0 directory (or the data directory holding it), a snapshot or a segment")
    s.add_argument("words", nargs=argparse.REMAINDER, metavar="COMMAND ...",
                   help="one command to run (ls, cat, find, tree), e.g. ls /image/topics/byName")
    replay_arguments(s)
    s.add_argument("--json", action="store_true", help="print each command's answer as one line of JSON")
    s.set_defaults(func=run_shell)


def _fail(message: str) -> int:
    return fail("metadata shell", message, 2)


def run_shell(args: argparse.Namespace) -> int:
    from kwire import __version__
    from kwire.features import METADATA_VERSIONS
    from kwire.metadata.loader import load_image
    from kwire.metadata.shell import ShellState
    from kwire.metadata.shell_nodes import root_node

    words = list(args.words)
    # options after PATH land in the command's words (argparse.REMAINDER): take kwire's own back
    while words and words[0] in ("--json", "--from-log", "-q", "--quiet", "-v", "--verbose", "--until"):
        option = words.pop(0).lstrip("-")
        if option == "until":
            if not words or not words[0].isdigit():
                return _fail("--until takes an offset, a number not negative")
            args.until = int(words.pop(0))
            continue
        setattr(args, {"q": "quiet", "v": "verbose"}.get(option, option.replace("-", "_")), True)
    try:
        known = {mv.level for mv in METADATA_VERSIONS}
        loaded = load_image(args.path, until=args.until, use_snapshots=not args.from_log,
                            known_metadata_version=known.__contains__)
    except (KwireError, OSError) as err:
        return _fail(str(err))
    state = ShellState(root_node(loaded.image, metadata_version_name=_name_or_level,
                                 local_version=f"kwire {__version__}"))
    if words:
        return _one_shot(state, words, args.json)
    return _interactive(state, args)


def _name_or_level(level: int) -> str:
    from kwire.features import from_level

    try:
        return from_level(level).name
    except (KwireError, KeyError, ValueError):
        return str(level)


def _print(outcome, as_json: bool) -> None:
    if as_json:
        print(json.dumps({**outcome.json, "errors": [line for line in outcome.lines if _is_error(line)]}
                         if outcome.missing else outcome.json))
    else:
        for line in outcome.lines:
            print(line)


def _is_error(line: str) -> bool:
    return line.startswith(("ls: ", "cat: ", "find: ", "tree: ", "cd: "))


def _one_shot(state, words: list[str], as_json: bool) -> int:
    from kwire.metadata.shell import ShellUsageError, run_command

    try:
        outcome = run_command(state, words, interactive=False)
    except ShellUsageError as err:
        return _fail(str(err))
    _print(outcome, as_json)
    return 1 if outcome.missing else 0


def _interactive(state, args: argparse.Namespace) -> int:
    from kwire.metadata.shell import ShellUsageError, run_command

    on_terminal = sys.stdin.isatty()
    if on_terminal and not args.json:
        print("[ Kafka Metadata Shell ]")
    while True:
        try:
            line = input(">> " if on_terminal else "")
        except EOFError:
            return 0
        except KeyboardInterrupt:
            print("^C")
            continue
        state.history.append(line)
        try:
            words = shlex.split(line)
        except ValueError as err:
            print(f"kwire metadata shell: {err}", file=sys.stderr)
            continue
        width = shutil.get_terminal_size().columns if on_terminal else None
        try:
            outcome = run_command(state, words, interactive=True, screen_width=width)
        except ShellUsageError as err:
            print(f"kwire metadata shell: {err}", file=sys.stderr)
            continue
        if outcome.exit:
            return 0
        if words:
            _print(outcome, args.json)
