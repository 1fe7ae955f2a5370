"""The ``kwire`` sub-commands, one module each, and the argument types they share."""
from __future__ import annotations

import argparse
import importlib.util


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



def replay_arguments(p: argparse.ArgumentParser, *, until_help: str | None = None) -> None:
    """``--until`` and ``--from-log``, meaning the same in every command that replays a metadata log
    (the way past damage its errors suggest: ``--until N reads the log up to the damage``)."""
    p.add_argument("--until", type=non_negative_int, metavar="OFFSET",
                   help=until_help or "replay only offsets below this one (exclusive, as snapshot names count)")
    p.add_argument("--from-log", action="store_true",
                   help="replay the log from its first offset instead of starting at a snapshot")
