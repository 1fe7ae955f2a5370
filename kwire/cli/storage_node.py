"""``kwire storage format --cluster-id ID --node-id N``: format a node's metadata directory as
``kafka-storage format`` does (Kafka 4.2.1): meta.properties, bootstrap.checkpoint and, for a
KIP-853 dynamic quorum (``--standalone`` or ``--initial-controllers``), the bootstrap snapshot
``__cluster_metadata-0/00000000000000000000-0000000000.checkpoint`` with the voter set
(:mod:`kwire.features.formatter`).

Exit codes: 0 written (or shown with ``--dry-run``), 1 refused (Kafka's message; an existing file
without ``--force``; nothing is written), 2 bad usage.
"""
from __future__ import annotations

import argparse
import json
import time

from kwire.cli.errors import fail
from kwire.features import FeatureError
from kwire.features.dynamic_voters import DynamicVoters
from kwire.wire.files import ExistingFileError

NODE_FLAGS = ("node_id", "standalone", "initial_controllers", "no_initial_controllers", "controller_listener",
              "directory_id")


def add_node_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``kafka-storage format`` that format a node (kwire takes them as flags, not
    from a server.properties: the node id, the controller listener)."""
    group = parser.add_argument_group("formatting a node (meta.properties and a dynamic quorum)")
    group.add_argument("--cluster-id", "-t", metavar="ID",
                       help="the cluster id: format the node's metadata directory (meta.properties too)")
    group.add_argument("--node-id", type=int, metavar="N", help="this node's node.id (with --cluster-id)")
    quorum = parser.add_mutually_exclusive_group()
    quorum.add_argument("--standalone", "-s", action="store_true",
                        help="a dynamic quorum of this controller alone, on --controller-listener NAME://HOST:PORT")
    quorum.add_argument("--initial-controllers", "-I", metavar="ID@HOST:PORT:DIRECTORY_ID,...",
                        help="the initial voters of a dynamic quorum; the same value on every controller")
    quorum.add_argument("--no-initial-controllers", "-N", action="store_true",
                        help="kraft.version 1 without initial voters (a broker, or a controller that joins later)")
    group.add_argument("--controller-listener", metavar="NAME[://HOST:PORT]",
                       help="the controller listener (controller.listener.names' first); HOST:PORT is needed "
                            "with --standalone (default name: CONTROLLER)")
    group.add_argument("--directory-id", metavar="UUID",
                       help="with --standalone: this directory id instead of a random one (Kafka's is random)")


def wants_node_format(args: argparse.Namespace) -> bool:
    return getattr(args, "cluster_id", None) is not None or any(
        getattr(args, name, None) not in (None, False) for name in NODE_FLAGS)


def _fail(message: str, code: int) -> int:
    return fail("storage format", message, code)


def run_format_node(args: argparse.Namespace) -> int:
    from kwire.features.dynamic_voters import parse_dynamic_voters
    from kwire.features.formatter import (
        describe_plan,
        parse_listener,
        plan_format,
        standalone_voters,
        write_format,
    )
    from kwire.wire.uuids import uuid_from_text

    if args.cluster_id is None or args.node_id is None:
        return _fail("--cluster-id and --node-id go together (with --standalone, --initial-controllers or "
                     "--no-initial-controllers for a dynamic quorum)", 2)
    if (args.out / "meta.properties").exists() and not args.force:  # Formatter.doFormat's refusal
        return _fail(f"Log directory {args.out} is already formatted. Use --ignore-formatted to ignore this "
                     f"directory and format the others.", 1)
    listener = args.controller_listener or "CONTROLLER"
    voters: DynamicVoters | None
    try:
        if args.standalone:
            if not args.controller_listener or "://" not in args.controller_listener:
                return _fail("--standalone needs --controller-listener NAME://HOST:PORT", 2)
            directory_id = uuid_from_text(args.directory_id) if args.directory_id else None
            voters = standalone_voters(args.node_id, args.controller_listener, directory_id)
        elif args.directory_id:
            return _fail("--directory-id goes with --standalone (--initial-controllers names every directory id)", 2)
        else:
            voters = parse_dynamic_voters(args.initial_controllers) if args.initial_controllers is not None else None
        listener_name = parse_listener(listener)[0] if "://" in listener else listener
        timestamp = args.timestamp if args.timestamp is not None else int(time.time() * 1000)
        extra = []
        if args.add_scram:
            from kwire.features.bootstrap import format_feature_levels
            from kwire.features.scram import check_scram_supported, scram_records

            check_scram_supported(format_feature_levels(args.metadata_version, {
                k: v for k, v in dict(args.feature).items() if k != "kraft.version"})["metadata.version"])
            extra = scram_records(args.add_scram)
        plan = plan_format(args.out, cluster_id=args.cluster_id, node_id=args.node_id,
                           release_version=args.metadata_version, features=dict(args.feature),
                           initial_controllers=voters, no_initial_controllers=args.no_initial_controllers,
                           controller_listener=listener_name, timestamp=timestamp, extra_records=extra)
    except (FeatureError, ValueError) as err:
        return _fail(str(err), 1)
    written = not args.dry_run
    if written:
        try:
            write_format(plan, force=args.force)
        except ExistingFileError as err:
            return _fail(str(err), 1)
        except OSError as err:
            return _fail(f"cannot write into {args.out}: {err.strerror or err}", 2)
    if args.json:
        print(json.dumps({**describe_plan(plan), "written": written}, indent=2))
    elif not args.quiet:
        print(("Would be: " if not written else "") + plan.formatting_line())
        for path in plan.files():
            print(f"  {'would write' if not written else 'wrote'} {path}")
        if plan.initial_controllers is not None:
            print(f"  initial controllers: {plan.initial_controllers} (kraft.version "
                  f"{plan.levels['kraft.version']}, listener {plan.controller_listener.upper()})")
    return 0
