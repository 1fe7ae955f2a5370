"""``kwire features version-mapping`` and ``feature-dependencies``: Kafka 4.2.1's kafka-features lookups
(:mod:`kwire.features.lookups`), text as Kafka prints it or ``--json``.

Exit codes: 0 printed, 2 an unknown release, feature or level (Kafka's message on stderr).
"""
from __future__ import annotations

import argparse
import json
import sys

from kwire.cli.commands import add_command


def register_lookups(ops: argparse._SubParsersAction) -> None:
    m = add_command(
        ops, "version-mapping", summary="the feature levels a metadata.version brings (kafka-features version-mapping)",
        description="Look up the corresponding features for a given metadata version, as Kafka 4.2.1's "
                    "kafka-features version-mapping prints them (default: the latest stable metadata version).",
    )
    m.add_argument("--release-version", metavar="R", help="3.9-IV0, or a release like 3.9 (its newest level)")
    m.add_argument("--json", action="store_true", help="print JSON")
    m.set_defaults(func=run_version_mapping)
    d = add_command(
        ops, "feature-dependencies", summary="what a feature level depends on (kafka-features feature-dependencies)",
        description="Look up dependencies for a given feature version, as Kafka 4.2.1's kafka-features "
                    "feature-dependencies prints them. Multiple features can be specified.",
    )
    d.add_argument("--feature", action="append", required=True, metavar="NAME=LEVEL",
                   help="a feature and level to look up (repeatable)")
    d.add_argument("--json", action="store_true", help="print JSON")
    d.set_defaults(func=run_feature_dependencies)


def _print(args: argparse.Namespace, lines: list[str], body: object) -> None:
    if args.json:
        print(json.dumps(body, indent=2))
    elif not args.quiet:
        for line in lines:
            print(line)


def run_version_mapping(args: argparse.Namespace) -> int:
    from kwire.features.lookups import LookupRefused, version_mapping

    try:
        found = version_mapping(args.release_version)
    except LookupRefused as err:
        print(err, file=sys.stderr)
        return 2
    _print(args, found.lines, found.json)
    return 0


def run_feature_dependencies(args: argparse.Namespace) -> int:
    from kwire.features.lookups import LookupRefused, feature_dependencies

    try:
        found = feature_dependencies(args.feature)
    except LookupRefused as err:
        if not args.json:  # Kafka prints the features it got through before the one it refuses
            _print(args, err.done.lines, None)
        print(err, file=sys.stderr)
        return 2
    _print(args, found.lines, found.json)
    return 0
