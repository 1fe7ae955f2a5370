"""``kwire features``: kafka-features, evaluated offline against a metadata directory.

- ``describe PATH``: the finalized features and their epoch, the ranges the registered brokers and
  controllers support; ``describe --bootstrap-server HOST:PORT`` asks a live broker through
  ApiVersions instead.
- ``upgrade`` / ``downgrade`` / ``disable PATH``: builds the UpdateFeaturesRequest kafka-features
  would send and judges it as Kafka 4.2.1's controller would against the state PATH holds
  (:mod:`kwire.features.update_features`): the verdict per feature in kafka-features' words, and
  the records the controller would append. Nothing is written.

PATH is a metadata log directory (or the directory holding ``__cluster_metadata-0``), a snapshot,
a segment, or a ``bootstrap.checkpoint``.

Exit codes: 0 described or accepted, 1 refused, 2 bad usage or unreadable input.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from kwire.cli.errors import fail
from kwire.features import FEATURES, FeatureError, metadata_version
from kwire.features.java_order import hash_map_order
from kwire.wire.errors import KwireError

from . import add_command, feature_assignment, replay_arguments

OPERATIONS = ("upgrade", "downgrade", "disable")


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "features",
                    description="kafka-features against a metadata log directory: describe the finalized "
                                   "features, or judge an upgrade, downgrade or disable as Kafka 4.2.1's "
                                   "controller would, without writing anything.")
    ops = p.add_subparsers(dest="operation", metavar="OPERATION")
    d = add_command(ops, "describe", summary="the finalized features and the ranges the nodes support",
                    description="Describe the features of a metadata directory, or of a live broker "
                                   "(--bootstrap-server) through ApiVersions.")
    d.add_argument("path", nargs="?", metavar="PATH",
                   help="metadata log directory, snapshot, segment or bootstrap file")
    d.add_argument("--bootstrap-server", metavar="HOST:PORT", help="ask this broker instead of reading PATH")
    d.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS", help="for --bootstrap-server (default 10)")
    d.add_argument("--json", action="store_true", help="print JSON")
    replay_arguments(d)
    d.set_defaults(func=run_describe)
    for operation in OPERATIONS:
        o = add_command(ops, operation, summary=f"judge a feature {operation} as the controller would",
                        description=f"Judge the {operation} kafka-features would request, as Kafka 4.2.1's "
                                       f"controller would, against the state PATH holds. Nothing is written.")
        o.add_argument("path", metavar="PATH", help="metadata log directory, snapshot, segment or bootstrap file")
        replay_arguments(o)
        if operation == "disable":
            o.add_argument("--feature", action="append", default=[], metavar="NAME",
                           help="a feature to disable (repeatable)")
        else:
            o.add_argument("--metadata-version", "--metadata", dest="metadata", metavar="MV",
                           help="the metadata.version: 3.6-IV2, 3.9 or a level (--metadata: kafka-features' name)")
            o.add_argument("--release-version", metavar="MV",
                           help="a metadata.version and every feature's default level at it")
            o.add_argument("--feature", action="append", type=feature_assignment, default=[], metavar="NAME=LEVEL",
                           help="a feature and its level (repeatable)")
        if operation == "upgrade":
            o.add_argument("--updated-voter", action="append", default=[], metavar="ID:DIRECTORY_ID[:MIN-MAX]",
                           help="for kraft.version=1 on a kraft.version 0 log: a voter that sent the leader an "
                                "UpdateRaftVoter (its directory id, kraft.version range, default 0-1); repeatable")
        if operation != "upgrade":
            o.add_argument("--unsafe", action="store_true", help="an unsafe (lossy) downgrade instead of a safe one")
        o.add_argument("--dry-run", action="store_true",
                       help="send ValidateOnly: the controller appends nothing (kwire shows what it would)")
        o.add_argument("--unstable", action="store_true",
                       help="the controller runs with unstable.feature.versions.enable: Kafka 4.2.1's unstable "
                            "levels (metadata.version 30, 4.3-IV0) are supported where no registration says "
                            "otherwise")
        o.add_argument("--request-version", type=int, choices=(0, 1, 2), default=2,
                       help="the UpdateFeaturesRequest version (default 2, what Kafka 4.x clients send)")
        o.add_argument("--json", action="store_true", help="print JSON")
        o.set_defaults(func=run_update, operation=operation)
    from kwire.cli.commands.features_lookups import register_lookups

    register_lookups(ops)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _fail(message: str, code: int = 2) -> int:
    return fail("features", message, code)


# ------------------------------------------------------------------------------------- describe


def run_describe(args: argparse.Namespace) -> int:
    from kwire.features.describe import describe_cluster, describe_cluster_text

    if (args.path is None) == (args.bootstrap_server is None):
        return _fail("give either PATH or --bootstrap-server HOST:PORT")
    if args.bootstrap_server:
        return _describe_live(args)
    try:
        state = _read_state(args)
    except KwireError as err:
        return _fail(str(err))
    if args.json:
        print(json.dumps({"path": args.path, **describe_cluster(state)}, indent=2))
    elif not args.quiet:
        print("\n".join(describe_cluster_text(state)))
    return 0


def _describe_live(args: argparse.Namespace) -> int:
    """The features in the broker's answer to the one ApiVersions exchange that opens the connection."""
    from kwire.features.describe import broker_features
    from kwire.network.client import BrokerConnection, ClientError, parse_address

    try:
        with BrokerConnection(*parse_address(args.bootstrap_server), timeout=args.timeout) as connection:
            version, response = connection.api_versions_version, connection.api_versions
    except ClientError as err:  # a broker's error code is its refusal (1); no conversation is unusable input (2)
        return _fail(str(err), 1 if err.error_code is not None else 2)
    except KwireError as err:
        return _fail(str(err))
    found = broker_features(response)
    if args.json:
        print(json.dumps({"bootstrapServer": args.bootstrap_server, "apiVersionsVersion": version,
                          **found.to_json()}, indent=2))
    elif not args.quiet:
        for row in found.rows():
            print(row.line(found.epoch))
        if not found.supported:
            why = "" if version >= 3 else f" (ApiVersions v{version} cannot carry features: v3 added them)"
            print(f"{args.bootstrap_server} reported no supported features{why}; finalized features epoch: "
                  f"{found.epoch if found.epoch >= 0 else '-'}")
    return 0


# -------------------------------------------------------------------------------------- updates


def _read_state(args: argparse.Namespace) -> Any:
    """The controller's feature state: the metadata image of PATH (below ``--until``, from the log's
    start with ``--from-log``), replayed as Kafka's loader does."""
    from kwire.metadata.cluster_features import cluster_features
    from kwire.metadata.loader import load_image

    return cluster_features(load_image(args.path, until=args.until, use_snapshots=not args.from_log))


def requested_levels(args: argparse.Namespace) -> dict[str, int]:
    """The updates kafka-features would send for these arguments (its messages for bad ones)."""
    from kwire.features.update_features import UPGRADE

    if args.operation == "disable":
        updates: dict[str, int] = {}
        for name in args.feature:
            name = name.split("=", 1)[0].strip()
            if name in updates:
                raise FeatureError(f"Feature {name} was specified more than once.")
            updates[name] = 0
    elif args.release_version is not None:
        if args.metadata is not None or args.feature:
            raise FeatureError("Can not specify `release-version` with other feature flags.")
        mv = metadata_version(args.release_version)
        updates = {"metadata.version": mv.level}
        for name, known in FEATURES.items():
            level = known.default_level(mv)
            if _upgrade_type(args) != UPGRADE or level > 0:  # kafka-features sends no upgrade to 0
                updates[name] = level
    else:
        updates = {}
        if args.metadata is not None:
            updates["metadata.version"] = metadata_version(args.metadata).level
        for name, level in args.feature:
            if name in updates:
                raise FeatureError(f"Feature {name} was specified more than once.")
            updates[name] = level
    if not updates:
        raise FeatureError(f"You must specify at least one feature to {args.operation}")
    return updates


def _updated_voters(texts: list[str]) -> dict[int, Any]:
    """``--updated-voter ID:DIRECTORY_ID[:MIN-MAX]``: what a voter sent the leader in UpdateRaftVoter."""
    from kwire.wire.uuids import uuid_from_text

    voters = {}
    for text in texts:
        parts = text.split(":")
        if len(parts) not in (2, 3) or not parts[0].isdigit():
            raise ValueError(f"--updated-voter: expected ID:DIRECTORY_ID[:MIN-MAX], got {text!r}")
        low, _, high = (parts[2] if len(parts) == 3 else "0-1").partition("-")
        voters[int(parts[0])] = (uuid_from_text(parts[1]), (int(low), int(high or low)))
    return voters


def _upgrade_type(args: argparse.Namespace) -> int:
    from kwire.features.update_features import SAFE_DOWNGRADE, UNSAFE_DOWNGRADE, UPGRADE

    if args.operation == "upgrade":
        return UPGRADE
    return UNSAFE_DOWNGRADE if args.unsafe else SAFE_DOWNGRADE


def run_update(args: argparse.Namespace) -> int:
    from kwire.features.describe import describe_cluster
    from kwire.features.update_features import UPGRADE, judge_update_features, update_request

    try:
        updates = requested_levels(args)
    except FeatureError as err:
        return _fail(str(err))
    try:
        state = _read_state(args)
        state.updated_voters = _updated_voters(getattr(args, "updated_voter", []))
    except (KwireError, ValueError) as err:
        return _fail(str(err))
    state.unstable = args.unstable
    if args.dry_run and args.request_version == 0:
        return _fail("--dry-run needs --request-version 1 or 2: ValidateOnly came with version 1")
    upgrade_type = _upgrade_type(args)
    # kafka-features hands the Admin client a HashMap: the request lists the features in its order
    ordered = [(name, updates[name]) for name in hash_map_order(updates)]
    v0 = args.request_version == 0
    # v0 says a downgrade with AllowDowngrade; it has no UpgradeType (nor ValidateOnly)
    request = update_request(ordered, upgrade_type=UPGRADE if v0 else upgrade_type,
                             allow_downgrade=v0 and upgrade_type != UPGRADE, validate_only=args.dry_run)
    verdict = judge_update_features(state, request, args.request_version)
    if not state.node_id_from and f"Local controller {state.node_id} " in (verdict.response.error_message or ""):
        verdict.notes.append(f"nothing names the active controller (no leader in the log, no quorum-state): "
                             f"{state.node_id} stands in for its id")
    if args.json:
        print(json.dumps({
            "path": args.path, "operation": args.operation, "accepted": verdict.accepted,
            "refusedFeature": verdict.refused_feature,
            "request": {"version": args.request_version, "body": request.to_dict(args.request_version)},
            "response": verdict.response.to_dict(args.request_version),
            "records": [{"name": r.name, "version": r.version, "value": r.to_dict()} for r in verdict.records],
            "wouldAppend": [{"name": r.name, "version": r.version, "value": r.to_dict()}
                            for r in verdict.would_append],
            "notes": verdict.notes, "state": describe_cluster(state)}, indent=2))
    elif not args.quiet:
        _print_update(args.operation, updates, verdict, dry_run=args.dry_run)
    return 0 if verdict.accepted else 1


def _print_update(operation: str, updates: dict[str, int], verdict: Any, *, dry_run: bool) -> None:
    """kafka-features' lines (FeatureCommand.update, Kafka 4.2.1): per feature by name (a TreeMap),
    "Can not"/"can be" for a dry run, "Could not"/"was" otherwise, the level as a number; the count
    of failures on stderr, as its TerseException is printed. Then kwire's own: the records."""
    for name in sorted(updates):
        level = updates[name]
        if verdict.accepted:
            done = "disabled." if operation == "disable" else f"{operation}d to {level}."
            print(f"{name}{' can be ' if dry_run else ' was '}{done}")
        else:
            target = f"disable {name}" if operation == "disable" else f"{operation} {name} to {level}"
            print(f"{'Can not' if dry_run else 'Could not'} {target}. {verdict.response.error_message}")
    if not verdict.accepted:
        print(f"{len(updates)} out of {len(updates)} operation(s) failed.", file=sys.stderr)
    elif verdict.would_append:
        print("A real run would append:" if dry_run else "Records the controller appends:")
        for record in verdict.would_append:
            print(f"  {record.name} v{record.version} {json.dumps(record.to_dict(), separators=(',', ':'))}")
    for note in verdict.notes:
        print(f"note: {note}")
