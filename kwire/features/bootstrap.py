"""``bootstrap.checkpoint``: the features a cluster starts with, as ``kafka-storage format`` writes them.

Kafka 4.2.1's ``Formatter`` settles every feature's level from ``--release-version`` (the
metadata.version) and ``--feature NAME=LEVEL``: named features are checked against the ones it
knows, the rest take their default for that metadata.version, and each level is validated with its
dependencies. ``BootstrapMetadata.fromVersions`` turns the levels into FeatureLevelRecords (v0):
metadata.version first, then the other features by name, only those above level 0, and never
kraft.version (the raft log keeps that one in its own control records). ``BatchFileWriter`` lays
them out as a snapshot: a control batch with the SnapshotHeaderRecord at offset 0, one batch with
the records, a control batch with the SnapshotFooterRecord; leader epoch 0, no compression, each
batch stamped with the clock when it was made.

Kafka's messages are kept word for word. A dynamic quorum (kraft.version 1, its bootstrap snapshot
and meta.properties) is :mod:`kwire.features.formatter`'s.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kwire.generated import FeatureLevelRecord
from kwire.logs.metadata_log import (
    BOOTSTRAP_FILE_NAME,
    MetadataLogWriter,
    MetadataRecord,
    MetadataSnapshot,
    read_snapshot,
)
from kwire.wire.files import atomic_write

from .errors import FeatureError
from .feature_versions import FEATURES, KRAFT_VERSION, validate_level
from .metadata_version import (
    FEATURE_NAME as METADATA_VERSION,
)
from .metadata_version import (
    LATEST_PRODUCTION,
    LATEST_TESTING_LEVEL,
    METADATA_VERSIONS,
    MINIMUM_LEVEL,
    MetadataVersion,
    from_level,
    metadata_version,
)


@dataclass
class BootstrapMetadata:
    """The records of a bootstrap file and the feature levels they set."""

    records: list[Any]
    source: str = "the bootstrap metadata"
    feature_levels: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        self.feature_levels = {}
        for record in self.records:
            message = getattr(record, "message", None)
            if isinstance(message, FeatureLevelRecord):
                self.feature_levels[message.name] = message.feature_level
        if METADATA_VERSION not in self.feature_levels:  # Kafka's BootstrapMetadata.fromRecords
            raise FeatureError(f"No FeatureLevelRecord for {METADATA_VERSION} was found in the bootstrap "
                               f"metadata from {self.source}")

    @property
    def metadata_version(self) -> MetadataVersion:
        return from_level(self.feature_levels[METADATA_VERSION])

    def feature_level(self, name: str) -> int:
        """The level the file sets for ``name``; 0 (off) when it has no record for it."""
        return self.feature_levels.get(name, 0)


def _formattable(value: MetadataVersion | int | str) -> MetadataVersion:
    """The metadata.version Kafka 4.2.1's formatter accepts for ``value``, which knows none below
    3.3-IV3 (Kafka 3.x formatted 3.3-IV0 to 3.3-IV2 too). A level (``--feature metadata.version=5``,
    or kwire's bare ``5``) is refused as ``MetadataVersion.fromFeatureLevel`` refuses it, a name
    as ``MetadataVersion.fromVersionString`` does (the list: every production level it knows; its
    message since KAFKA-19544, in 4.2.0 and 4.2.1)."""
    mv = metadata_version(value)
    if mv.level >= MINIMUM_LEVEL:
        return mv
    if isinstance(value, int) or (isinstance(value, str) and value.strip().isdigit()):
        raise FeatureError(f"No MetadataVersion with feature level {mv.level}. Valid feature levels are from "
                           f"{MINIMUM_LEVEL} to {LATEST_TESTING_LEVEL}.")
    known = ", ".join(v.name for v in METADATA_VERSIONS if MINIMUM_LEVEL <= v.level <= LATEST_PRODUCTION.level)
    raise FeatureError(f"Unknown {METADATA_VERSION} '{value}'. Supported {METADATA_VERSION} are: {known}")


def format_feature_levels(
    release_version: MetadataVersion | int | str | None = None,
    features: Mapping[str, int] | None = None,
) -> dict[str, int]:
    """Every feature's level as ``kafka-storage format`` settles it (``Formatter`` in Kafka 4.2.1).

    ``release_version`` is ``--release-version`` (default: the newest production level);
    ``features`` are the ``--feature NAME=LEVEL`` pairs. kraft.version is 0 unless set: kwire
    writes no dynamic-quorum snapshot, so it refuses level 1 as Kafka does without those flags.
    """
    requested = dict(features or {})
    if METADATA_VERSION in requested:
        if release_version is not None:
            raise FeatureError(f"Use --release-version instead of --feature {METADATA_VERSION}=X to avoid ambiguity.")
        mv = _formattable(requested[METADATA_VERSION])
    else:
        mv = _formattable(release_version) if release_version is not None else LATEST_PRODUCTION
    for name in requested:
        if name != METADATA_VERSION and name not in FEATURES:
            raise FeatureError(f"Unsupported feature: {name}. Supported features are: {', '.join(sorted(FEATURES))}")
    levels = {name: int(level) for name, level in requested.items()}
    levels[METADATA_VERSION] = mv.level
    kraft = levels.get(KRAFT_VERSION, 0)
    if kraft != 0:
        # Kafka 4.2.1's Formatter.effectiveKRaftFeatureLevel without dynamic-quorum flags (those are in
        # kwire.features.formatter, which settles kraft.version itself)
        raise FeatureError(f"Cannot set {KRAFT_VERSION} to {kraft} unless controller.quorum.voters is empty and one "
                           f"of the flags --standalone, --initial-controllers, or --no-initial-controllers is used. "
                           f"For dynamic controllers support, try using one of --standalone, --initial-controllers, "
                           f"or --no-initial-controllers and removing controller.quorum.voters.")
    levels[KRAFT_VERSION] = 0
    for name, known in FEATURES.items():
        levels.setdefault(name, known.default_level(mv))
    for name, level in sorted(levels.items()):
        if name != METADATA_VERSION:
            reason = validate_level(FEATURES[name].level(level), levels)
            if reason:
                raise FeatureError(reason)
    return dict(sorted(levels.items()))


def bootstrap_records(levels: Mapping[str, int]) -> list[MetadataRecord]:
    """The FeatureLevelRecords for ``levels`` (``BootstrapMetadata.fromVersions``)."""
    from kwire.generated.feature_level_record import FeatureLevelRecord

    if METADATA_VERSION not in levels:
        raise FeatureError(f"bootstrap records need a {METADATA_VERSION} level")
    records = [MetadataRecord(FeatureLevelRecord(name=METADATA_VERSION, feature_level=levels[METADATA_VERSION]), 0)]
    for name in sorted(levels):
        if name not in (METADATA_VERSION, KRAFT_VERSION) and levels[name] > 0:
            records.append(MetadataRecord(FeatureLevelRecord(name=name, feature_level=levels[name]), 0))
    return records


def bootstrap_snapshot(records: Iterable[Any], *, timestamp: int | tuple[int, int, int]) -> MetadataSnapshot:
    """``records`` laid out as Kafka's ``BatchFileWriter`` writes a bootstrap file.

    ``timestamp`` stamps all three batches, or is (header, records, footer): Kafka reads its clock
    for each, so a real file's batches differ by a millisecond or so.
    """
    from kwire.generated.snapshot_footer_record import SnapshotFooterRecord
    from kwire.generated.snapshot_header_record import SnapshotHeaderRecord

    header_time, records_time, footer_time = (timestamp,) * 3 if isinstance(timestamp, int) else timestamp
    records = list(records)
    if not records:
        raise FeatureError("a bootstrap file needs at least its metadata.version record")
    writer = MetadataLogWriter(0)
    writer.append_control([SnapshotHeaderRecord(version=0, last_contained_log_timestamp=0)],
                          timestamp=header_time, leader_epoch=0)
    writer.append(records, timestamp=records_time, leader_epoch=0)
    writer.append_control([SnapshotFooterRecord(version=0)], timestamp=footer_time, leader_epoch=0)
    return MetadataSnapshot(writer.batches)


def format_bootstrap(
    release_version: MetadataVersion | int | str | None = None,
    features: Mapping[str, int] | None = None,
    *,
    timestamp: int | tuple[int, int, int],
) -> tuple[dict[str, int], MetadataSnapshot]:
    """The settled feature levels and the bootstrap file ``kafka-storage format`` would write."""
    levels = format_feature_levels(release_version, features)
    return levels, bootstrap_snapshot(bootstrap_records(levels), timestamp=timestamp)


def write_bootstrap(directory: str | os.PathLike, snapshot: MetadataSnapshot, *, force: bool = False) -> Path:
    """Write ``bootstrap.checkpoint`` into ``directory`` (created if missing) atomically
    (:mod:`kwire.wire.files`); an existing one is replaced only with ``force``."""
    return atomic_write(Path(directory) / BOOTSTRAP_FILE_NAME, snapshot.encode(), force=force)


def read_bootstrap(source: Any) -> BootstrapMetadata:
    """The records and feature levels of a bootstrap file (path, file object or bytes)."""
    snapshot = read_snapshot(source)
    where = f"the binary bootstrap metadata file: {source}" if isinstance(source, (str, os.PathLike)) else \
        "the bootstrap metadata"
    return BootstrapMetadata(snapshot.records, where)
