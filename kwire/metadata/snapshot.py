"""An image written as a KRaft snapshot file, as Kafka's ``RecordsSnapshotWriter`` lays one out.

The snapshot is named for the offset after the last one the image holds and that offset's epoch
(``00000000000000007111-0000000001.checkpoint`` holds every offset below 7111); its header carries
the log timestamp of that last offset, and, when kraft.version is 1 or more, the KRaftVersionRecord
and VotersRecord of the quorum. The records are :func:`kwire.metadata.writer.write_image`'s.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from kwire.logs.metadata_log import (
    MetadataSnapshot,
    SnapshotId,
    build_snapshot,
    parse_snapshot_file_name,
)
from kwire.metadata.image import MetadataImage, QuorumImage
from kwire.metadata.writer import WrittenImage


def snapshot_id_of(image: MetadataImage) -> SnapshotId:
    provenance = image.provenance
    return SnapshotId(provenance.last_offset + 1, max(provenance.last_epoch, 0))


def voters_record(quorum: QuorumImage) -> Any:
    """The quorum's VotersRecord (None for a static quorum)."""
    if quorum.voters is None:
        return None
    from kwire.generated.voters_record import (
        Endpoint,
        KRaftVersionFeature,
        Voter,
        VotersRecord,
    )

    return VotersRecord(version=0, voters=[
        Voter(voter_id=v.id, voter_directory_id=v.directory_id,
              endpoints=[Endpoint(name=n, host=h, port=p) for n, h, p in v.endpoints],
              kraft_version_feature=KRaftVersionFeature(min_supported_version=v.kraft_version.min,
                                                        max_supported_version=v.kraft_version.max))
        for v in quorum.voters])


def build_image_snapshot(image: MetadataImage, written: WrittenImage, *,
                         timestamp: int | None = None) -> MetadataSnapshot:
    """The snapshot of ``image`` holding ``written``'s records; batches stamped ``timestamp``
    (default: the log timestamp of the image's last offset, so the same input gives the same bytes)."""
    last_timestamp = max(image.provenance.last_timestamp, 0)
    quorum = image.quorum
    return build_snapshot(
        written.records,
        timestamp=last_timestamp if timestamp is None else timestamp,
        snapshot_id=snapshot_id_of(image),
        last_contained_log_timestamp=last_timestamp,
        kraft_version=quorum.kraft_version,
        voters=voters_record(quorum) if quorum.kraft_version > 0 else None,
    )


def what_a_node_loads(written: Path) -> str | None:
    """What a node started on the directory ``written`` went into would make of it, when that
    directory holds a metadata log (segments or other snapshots); None otherwise."""
    directory = written.parent
    others = [p for p in directory.iterdir()
              if p != written and (p.suffix == ".log" or parse_snapshot_file_name(p.name))]
    if not others:
        return None
    snapshots = [(parse_snapshot_file_name(p.name), p.name)
                 for p in [written, *others] if parse_snapshot_file_name(p.name)]
    newest = max(snapshots)[1] if snapshots else written.name
    if newest == written.name:
        return f"{directory} holds a metadata log: a node started on this directory will load {written.name}"
    return (f"{directory} holds a metadata log: a node started on this directory loads its newest snapshot, "
            f"{newest}, not {written.name}")
