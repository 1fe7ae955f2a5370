"""``kwire storage info DIR...`` and ``kwire storage random-uuid``, as ``kafka-storage`` prints them.

``info``: Kafka 3.9's ``StorageTool.infoCommand`` word for word (:mod:`kwire.logs.meta_properties`)
over the directories given (Kafka reads them from a server.properties); ``-v`` and ``--json`` add
what each directory holds besides: partition directories, segments (and those Kafka renamed
``.deleted``/``.cleaned``/``.swap``), and its text state files with their entry counts or damage
(:mod:`kwire.logs.checkpoints`). ``random-uuid``: ``Uuid.randomUuid()``, never a reserved id.

Exit codes: 0 no problem, 1 problems found (Kafka's exit code), 2 bad usage.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from kwire.cli.commands import add_command, plural


def register_info(actions: argparse._SubParsersAction) -> None:
    i = add_command(
        actions, "info", summary="what log directories hold: meta.properties, whether they agree, their state files",
        exit_status="0 no problem found, 1 problems found (as kafka-storage info), 2 bad usage.",
        description="Print what kafka-storage info prints for these log directories (Kafka 3.9's words): the "
                    "directories found, the metadata of the first meta.properties read, and the problems (a "
                    "directory missing, not formatted, an unreadable meta.properties, cluster or node ids that "
                    "differ between directories, a legacy (ZooKeeper) format). -v and --json add each "
                    "directory's partitions, segments and state files (checkpoints, partition.metadata).")
    i.add_argument("directories", nargs="+", metavar="DIR", help="log directories (log.dirs and metadata.log.dir)")
    i.add_argument("--json", action="store_true", help="print the findings as JSON")
    i.set_defaults(func=run_info)
    u = add_command(actions, "random-uuid", summary="print a random UUID (a cluster id or directory id)",
                    description="Print a random Kafka UUID as kafka-storage random-uuid does "
                                "(Uuid.randomUuid: never a reserved id, never text starting with '-').",
                    exit_status="0.")
    u.set_defaults(func=run_random_uuid)


def run_random_uuid(args: argparse.Namespace) -> int:
    from kwire.features.dynamic_voters import random_kafka_uuid
    from kwire.wire.jsonform import uuid_to_text

    print(uuid_to_text(random_kafka_uuid()))
    return 0


def directory_contents(directory: Path) -> dict[str, Any]:
    """What a log directory holds besides meta.properties: partitions, segments, state files."""
    from kwire.logs.checkpoints import (
        CheckpointError,
        read_leader_epoch_checkpoint,
        read_offset_checkpoint,
        read_partition_metadata,
    )
    from kwire.logs.files import kafka_files, transient_state

    readers = {"leader-epoch-checkpoint": read_leader_epoch_checkpoint, "offset-checkpoint": read_offset_checkpoint,
               "partition-metadata": read_partition_metadata}
    partitions = sorted(p.name for p in directory.iterdir() if p.is_dir() and not p.name.startswith("."))
    counts: dict[str, int] = {}
    renamed: list[str] = []
    state_files: list[dict[str, Any]] = []
    for path, kind in kafka_files(directory, transient=True):
        relative = str(path.relative_to(directory))
        if transient_state(path.name):
            renamed.append(relative)
            continue
        counts[kind] = counts.get(kind, 0) + 1
        if kind in readers:
            try:
                read = readers[kind](path)
                entries = len(read) if isinstance(read, list) else 1
                state_files.append({"file": relative, "kind": kind, "entries": entries})
            except (CheckpointError, OSError) as err:
                state_files.append({"file": relative, "kind": kind, "error": str(err)})
    return {"partitions": partitions, "files": dict(sorted(counts.items())), "renamedSegmentFiles": renamed,
            "stateFiles": state_files}


def run_info(args: argparse.Namespace) -> int:
    from kwire.logs.meta_properties import MetaProperties, storage_info

    info = storage_info(args.directories)
    contents = {d: directory_contents(Path(d)) for d in info.directories} if (args.json or args.verbose) else {}
    if args.json:
        by_directory = {d: (m.to_properties() if isinstance(m, MetaProperties) else {"problem": m})
                        for d, m in info.by_directory.items()}
        print(json.dumps({
            "directories": info.directories,
            "metadata": info.metadata.to_properties() if info.metadata else None,
            "problems": info.problems,
            "metaProperties": by_directory,
            "contents": contents,
        }, indent=1))
    elif not args.quiet or info.problems:
        for line in info.lines():
            print(line)
        for directory, held in contents.items():
            print(f"{directory}: {len(held['partitions'])} partition directories; files: "
                  + (", ".join(f"{kind} x{n}" for kind, n in held["files"].items()) or "none"))
            for state in held["stateFiles"]:
                what = plural(state["entries"], "entry", "entries") if "entries" in state \
                    else f"DAMAGED: {state['error']}"
                print(f"  {state['file']}: {what}")
            for name in held["renamedSegmentFiles"]:
                print(f"  {name}: renamed by Kafka (not read as the log)")
    damaged = any("error" in s for held in contents.values() for s in held["stateFiles"])
    return 1 if info.problems or damaged else 0
