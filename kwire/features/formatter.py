"""``kafka-storage format`` for one metadata directory: ``meta.properties``, ``bootstrap.checkpoint``
and, for a KIP-853 dynamic quorum, the bootstrap snapshot
``__cluster_metadata-0/00000000000000000000-0000000000.checkpoint``.

Followed: Kafka 4.2.1's ``Formatter`` (``metadata/.../storage/Formatter.java``) and ``StorageTool``
(``core/.../tools/StorageTool.scala``) as of the 4.x line before KAFKA-19648 (which, after 4.2,
moved the bootstrap records into the snapshot). For the metadata log directory of a node:

* ``meta.properties``: version 1, cluster.id, node.id and directory.id: the node's own directory id
  from ``--initial-controllers`` (a *dynamic metadata voter directory*), else a random one;
* ``bootstrap.checkpoint``: the FeatureLevelRecords (:mod:`kwire.features.bootstrap`);
* for a dynamic quorum with initial controllers (``--standalone`` or ``--initial-controllers``,
  whether or not the node is one of them): the snapshot ``RecordsSnapshotWriter`` writes at id
  (0, 0), ``Formatter.writeDynamicQuorumSnapshot``: one control batch at offset 0 holding the
  SnapshotHeaderRecord (v0, lastContainedLogTimestamp = the clock), the KRaftVersionRecord (v0,
  kraft.version 1) and the VotersRecord (v0), then a control batch at offset 3 with the
  SnapshotFooterRecord (v0); leader epoch 0, no compression, each batch stamped with the clock.

``kraft.version`` is 1 with any of ``--standalone``, ``--initial-controllers`` or
``--no-initial-controllers`` and 0 without (``Formatter.effectiveKRaftFeatureLevel``); naming the
other level with ``--feature`` is refused with Kafka's message. Kafka does not refuse a node id that
is not among the initial controllers: that directory is formatted as a *dynamic metadata directory*
(a future observer) with a random directory id and the same bootstrap snapshot.
"""
from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID

from kwire.logs.metadata_log import (
    BOOTSTRAP_FILE_NAME,
    METADATA_DIRECTORY,
    MetadataLogWriter,
    MetadataSnapshot,
    SnapshotId,
)
from kwire.wire.files import atomic_write, refuse_existing
from kwire.wire.uuids import uuid_to_text

from .bootstrap import bootstrap_records, bootstrap_snapshot, format_feature_levels
from .dynamic_voters import DynamicVoters, parse_dynamic_voter, random_kafka_uuid
from .errors import FeatureError
from .feature_versions import FEATURES, KRAFT_VERSION
from .metadata_version import FEATURE_NAME as METADATA_VERSION
from .metadata_version import from_level

META_PROPERTIES = "meta.properties"
#: ``Snapshots.BOOTSTRAP_SNAPSHOT_ID``: end offset 0, epoch 0.
BOOTSTRAP_SNAPSHOT_ID = SnapshotId(0, 0)

# Kafka 4.2.1's words (Formatter.effectiveKRaftFeatureLevel)
_KRAFT_0_WITH_DYNAMIC = (
    "Cannot set kraft.version to 0 if controller.quorum.voters is empty and one of the flags --standalone, "
    "--initial-controllers, or --no-initial-controllers is used. For dynamic controllers support, try removing "
    "the --feature flag for kraft.version.")
_KRAFT_N_WITHOUT_DYNAMIC = (
    "Cannot set kraft.version to {level} unless controller.quorum.voters is empty and one of the flags "
    "--standalone, --initial-controllers, or --no-initial-controllers is used. For dynamic controllers support, "
    "try using one of --standalone, --initial-controllers, or --no-initial-controllers and removing "
    "controller.quorum.voters.")

#: ``Formatter.DirectoryType.description()``
STATIC_METADATA_DIRECTORY = "metadata directory"
DYNAMIC_METADATA_NON_VOTER_DIRECTORY = "dynamic metadata directory"
DYNAMIC_METADATA_VOTER_DIRECTORY = "dynamic metadata voter directory"


def effective_kraft_level(requested: int | None, has_dynamic_quorum: bool) -> int:
    """``Formatter.effectiveKRaftFeatureLevel``: 1 for a dynamic quorum, 0 for a static one."""
    if requested is None:
        return 1 if has_dynamic_quorum else 0
    if requested == 0 and has_dynamic_quorum:
        raise FeatureError(_KRAFT_0_WITH_DYNAMIC)
    if requested != 0 and not has_dynamic_quorum:
        raise FeatureError(_KRAFT_N_WITHOUT_DYNAMIC.format(level=requested))
    FEATURES[KRAFT_VERSION].level(requested)  # "No feature:kraft.version with feature level N"
    return requested


def standalone_voters(node_id: int, listener: str, directory_id: UUID | None = None) -> DynamicVoters:
    """``StorageTool.createStandaloneDynamicVoters``: this node alone, on its controller listener
    ``NAME://HOST:PORT`` (an empty host is ``localhost``), with a random directory id."""
    _, host, port = parse_listener(listener)
    chosen = directory_id if directory_id is not None else random_kafka_uuid()
    return DynamicVoters((parse_dynamic_voter(f"{node_id}@{host or 'localhost'}:{port}:{uuid_to_text(chosen)}"),))


def parse_listener(text: str) -> tuple[str, str, int]:
    """``NAME://HOST:PORT`` (``[IPV6]`` hosts too) -> (name, host, port)."""
    name, sep, address = text.partition("://")
    host, colon, port = address.rpartition(":")
    if not sep or not name or not colon or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise FeatureError(f"Unable to parse {text} to a listener endpoint: expected NAME://HOST:PORT")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return name, host, int(port)


@dataclass
class FormatPlan:
    """What ``kafka-storage format`` writes into one metadata log directory, before anything is written."""

    directory: Path
    cluster_id: str
    node_id: int
    directory_id: UUID
    directory_type: str
    levels: dict[str, int]
    bootstrap: MetadataSnapshot
    initial_controllers: DynamicVoters | None = None
    controller_listener: str = "CONTROLLER"
    quorum_snapshot: MetadataSnapshot | None = None
    properties_time: str = field(default="", repr=False)

    @property
    def meta_properties_path(self) -> Path:
        return self.directory / META_PROPERTIES

    @property
    def bootstrap_path(self) -> Path:
        return self.directory / BOOTSTRAP_FILE_NAME

    @property
    def quorum_snapshot_path(self) -> Path:
        return self.directory / METADATA_DIRECTORY / BOOTSTRAP_SNAPSHOT_ID.file_name()

    def meta_properties(self) -> str:
        """The file as Kafka's ``PropertiesUtils.writePropertiesFile`` (``Properties.store(writer, "")``)
        writes it: an empty comment, the date comment, then the keys sorted, as a Java 18+ runtime
        stores them (JDK-8231640) and as the real Kafka 3.6.1 and 3.9.0 nodes' files in tests/data have
        them; a Java 17 runtime lists them in its hash table's order instead."""
        entries = {"cluster.id": self.cluster_id, "directory.id": uuid_to_text(self.directory_id),
                   "node.id": str(self.node_id), "version": "1"}
        stamp = self.properties_time or time.strftime("%a %b %d %H:%M:%S UTC %Y", time.gmtime())
        return "#\n#" + stamp + "\n" + "".join(f"{key}={value}\n" for key, value in sorted(entries.items()))

    def files(self) -> dict[Path, bytes]:
        """Every file to write, in the order Kafka writes them (bootstrap files, then meta.properties)."""
        out = {self.bootstrap_path: self.bootstrap.encode()}
        if self.quorum_snapshot is not None:
            out[self.quorum_snapshot_path] = self.quorum_snapshot.encode()
        out[self.meta_properties_path] = self.meta_properties().encode("utf-8")
        return out

    def formatting_line(self) -> str:
        """Kafka's ``Formatting <type> <dir> with metadata.version <mv>.``"""
        return (f"Formatting {self.directory_type} {self.directory} with {METADATA_VERSION} "
                f"{from_level(self.levels[METADATA_VERSION]).name}.")


def quorum_bootstrap_snapshot(voters: DynamicVoters, controller_listener: str, *, kraft_version: int,
                              timestamp: int | tuple[int, int]) -> MetadataSnapshot:
    """The (0, 0) snapshot ``Formatter.writeDynamicQuorumSnapshot`` writes.

    ``timestamp`` stamps both batches and the header's lastContainedLogTimestamp, or is (header, footer):
    Kafka reads its clock for the header batch (after the builder took lastContainedLogTimestamp
    from it) and again for the footer.
    """
    from kwire.generated.kraft_version_record import KRaftVersionRecord
    from kwire.generated.snapshot_footer_record import SnapshotFooterRecord
    from kwire.generated.snapshot_header_record import SnapshotHeaderRecord

    header_time, footer_time = (timestamp, timestamp) if isinstance(timestamp, int) else timestamp
    header: list[Any] = [SnapshotHeaderRecord(version=0, last_contained_log_timestamp=header_time)]
    if kraft_version >= 1:  # KRaftVersion.isReconfigSupported
        header.append(KRaftVersionRecord(version=0, kraft_version=kraft_version))
        header.append(voters.to_voters_record(controller_listener))
    writer = MetadataLogWriter(0)
    writer.append_control(header, timestamp=header_time, leader_epoch=BOOTSTRAP_SNAPSHOT_ID.epoch)
    writer.append_control([SnapshotFooterRecord(version=0)], timestamp=footer_time,
                          leader_epoch=BOOTSTRAP_SNAPSHOT_ID.epoch)
    return MetadataSnapshot(writer.batches, BOOTSTRAP_SNAPSHOT_ID)


def plan_format(
    directory: str | os.PathLike,
    *,
    cluster_id: str,
    node_id: int,
    release_version: Any = None,
    features: Mapping[str, int] | None = None,
    initial_controllers: DynamicVoters | None = None,
    no_initial_controllers: bool = False,
    controller_listener: str = "CONTROLLER",
    timestamp: int | None = None,
    extra_records: Sequence[Any] = (),
) -> FormatPlan:
    """Settle everything ``kafka-storage format`` would write into ``directory``; nothing is written.

    ``initial_controllers`` comes from ``--initial-controllers`` or :func:`standalone_voters`;
    ``extra_records`` follow the FeatureLevelRecords in the bootstrap file (``--add-scram``'s).
    """
    if node_id < 0:
        raise FeatureError("You must specify a valid non-negative node ID.")
    if node_id > 2**31 - 1:  # node.id is an INT config: Kafka's ConfigDef refuses it before the tool runs
        raise FeatureError(f"Invalid value {node_id} for configuration node.id: Not a number of type INT")
    if not cluster_id:
        raise FeatureError("You must specify the cluster id.")
    if initial_controllers is not None and no_initial_controllers:
        raise FeatureError("argument --no-initial-controllers: not allowed with --initial-controllers or --standalone")
    has_dynamic_quorum = initial_controllers is not None or no_initial_controllers
    requested = dict(features or {})
    kraft_requested = requested.pop(KRAFT_VERSION, None)
    levels = format_feature_levels(release_version, requested)
    levels[KRAFT_VERSION] = effective_kraft_level(kraft_requested, has_dynamic_quorum)
    stamp = timestamp if timestamp is not None else int(time.time() * 1000)
    bootstrap = bootstrap_snapshot([*bootstrap_records(levels), *extra_records], timestamp=stamp)
    own = initial_controllers.get(node_id) if initial_controllers is not None else None
    if initial_controllers is None:
        kind = STATIC_METADATA_DIRECTORY
    else:
        kind = DYNAMIC_METADATA_VOTER_DIRECTORY if own is not None else DYNAMIC_METADATA_NON_VOTER_DIRECTORY
    snapshot = None if initial_controllers is None else quorum_bootstrap_snapshot(
        initial_controllers, controller_listener, kraft_version=levels[KRAFT_VERSION], timestamp=stamp)
    return FormatPlan(Path(directory), cluster_id, node_id, own.directory_id if own else random_kafka_uuid(), kind,
                      dict(sorted(levels.items())), bootstrap, initial_controllers, controller_listener, snapshot)


def write_format(plan: FormatPlan, *, force: bool = False) -> list[Path]:
    """Write the plan's files through :mod:`kwire.wire.files`: every target is checked first, so a
    refusal (an existing file without ``force``) writes nothing."""
    files = plan.files()
    for path in files:
        refuse_existing(path, force=force)
    return [atomic_write(path, data, force=force) for path, data in files.items()]


def describe_plan(plan: FormatPlan) -> dict[str, Any]:
    """The plan as JSON: the files, meta.properties' values, the levels and the voters."""
    voters = None
    if plan.quorum_snapshot is not None:
        record = plan.quorum_snapshot.voters
        voters = record.to_dict(0)["voters"] if record is not None else None
    return {
        "directory": str(plan.directory), "directoryType": plan.directory_type,
        "metaProperties": {"version": 1, "cluster.id": plan.cluster_id, "node.id": plan.node_id,
                           "directory.id": uuid_to_text(plan.directory_id)},
        "features": plan.levels,
        "files": [str(path) for path in plan.files()],
        "initialControllers": None if plan.initial_controllers is None else str(plan.initial_controllers),
        "voters": voters,
    }
