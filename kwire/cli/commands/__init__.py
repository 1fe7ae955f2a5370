"""The ``kwire`` sub-commands, one module each, and the parser layout and argument types they share."""
from __future__ import annotations

import argparse
import importlib.util

# sub-command name -> its line in `kwire --help`, written here only: a command's module registers it
# through add_command, and kwire.cli.main lists a command it does not build from here
SUMMARIES = {
    "validate": "check definition files against the format and Kafka's rules",
    "generate": "emit Python codecs for a directory of definitions",
    "check-compat": "flag incompatible changes between two generations of definitions",
    "dump": "print Kafka log segments, snapshots, indexes and state files",
    "fuzz": "fuzz every message at every version and classify version conversions",
    "decode": "decode Kafka log files into Parquet or JSON (here, or on Spark)",
    "schemas": "write Spark and Arrow schemas of every message version",
    "frame": "decode one captured request or response frame",
    "storage": "write KRaft storage files (bootstrap.checkpoint)",
    "features": "describe and judge feature-level changes (kafka-features, offline)",
    "metadata": "the metadata image of a KRaft log: show it, write it as a snapshot, check downgrades",
    "doctor": "say which parts run compiled (record decoder, codecs) and why not",
    "build-native": "compile the record decoder (and, with --codecs, the codecs) with mypyc",
    "versions": "which Kafka release added each API version",
    "merge-versions": "restore the versions a newer definition removed, proven",
}


def add_command(commands: argparse._SubParsersAction, name: str, description: str, *, summary: str | None = None,
                exit_status: str | None = None, notes: str | None = None,
                raw: bool = False) -> argparse.ArgumentParser:
    """A (sub-)command's parser, laid out as every kwire command's: ``summary``, its line in its parent's
    ``--help`` (a top-level command's is its line in :data:`SUMMARIES`); the description; an epilog of
    ``notes``, then ``Exit status: ...``. ``raw`` keeps the line breaks of description and epilog. The
    examples are added from :mod:`kwire.cli.examples`."""
    epilog = "\n".join(part for part in (notes, exit_status and f"Exit status: {exit_status}") if part) or None
    layout = {"formatter_class": argparse.RawDescriptionHelpFormatter} if raw else {}
    return commands.add_parser(name, help=SUMMARIES[name] if summary is None else summary, description=description,
                               epilog=epilog, **layout)


def missing_extra(extra: str, *modules: str) -> str | None:
    """A one-line reason when an optional dependency is not installed, e.g. for ``kwire[spark]``."""
    absent = [name for name in modules if importlib.util.find_spec(name) is None]
    if not absent:
        return None
    return f"{' and '.join(absent)} {'is' if len(absent) == 1 else 'are'} not installed; install kwire[{extra}]"


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """``1 definition``, ``3 definitions``: a count with its noun agreeing."""
    return f"{count} {noun if count == 1 else plural_form or noun + 's'}"


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def non_negative_int(text: str) -> int:
    """An argparse type: a whole number of at least 0."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return value


def feature_assignment(text: str) -> tuple[str, int]:
    """An argparse type: ``NAME=LEVEL`` (``group.version=1``), as kafka-features and kafka-storage take it."""
    name, sep, level = text.partition("=")
    if not sep or not name.strip() or not level.strip().lstrip("-").isdigit():
        raise argparse.ArgumentTypeError(f"expected NAME=LEVEL with a whole-number level, got {text!r}")
    return name.strip(), int(level)


def until_argument(p: argparse.ArgumentParser) -> None:
    """``--until``, said alike in every command that reads a metadata log up to an offset (those
    that replay one take it with ``--from-log``, :func:`replay_arguments`; ``metadata quorum`` alone)."""
    p.add_argument("--until", type=non_negative_int, metavar="OFFSET",
                   help="replay only offsets below this one (exclusive, as snapshot names count; "
                        "a snapshot file is its image at its end offset: an OFFSET below it is refused)")


def replay_arguments(p: argparse.ArgumentParser) -> None:
    """``--until`` and ``--from-log``, meaning the same in every command that replays a metadata log
    (the way past damage its errors suggest: ``--until N reads the log up to the damage``), so said
    alike in each. A snapshot file is one image, Kafka's at its end offset: --until cannot cut it,
    so an offset below that end is refused (kwire.logs.metadata_log.refuse_cutting_a_snapshot), not ignored."""
    until_argument(p)
    p.add_argument("--from-log", action="store_true",
                   help="replay the log from its first offset instead of starting at a snapshot")
