"""A copy of a real data directory with records appended to its metadata log, as its leader would
append them: what an operator's cluster looks like after a few more changes."""
from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kwire.generated import MESSAGES
from kwire.logs.metadata_log import MetadataLogWriter, MetadataRecord, read_metadata_log


def write_log(tmp_path: Path, batches, version: Callable[[Any], int] = lambda _record: 0) -> Path:
    """A new ``__cluster_metadata-0`` under ``tmp_path``: one segment from offset 0 holding one batch
    per list of records (each at ``version(record)``), timestamps 1000, 1001, ..., leader epoch 1."""
    writer = MetadataLogWriter(0)
    for i, records in enumerate(batches):
        writer.append([MetadataRecord(r, version(r)) for r in records], timestamp=1000 + i, leader_epoch=1)
    directory = tmp_path / "__cluster_metadata-0"
    directory.mkdir()
    writer.write_segment(directory)
    return directory


def with_records(source: Path, target: Path, *records: tuple[str, dict[str, Any]]) -> Path:
    """``source`` copied to ``target`` with one batch of ``records`` (type name, fields; version 0)
    appended to the end of its newest segment, in its last batch's leader epoch."""
    shutil.copytree(source, target)
    log_dir = target / "__cluster_metadata-0"
    segment = sorted(log_dir.glob("*.log"))[-1]
    last = list(read_metadata_log(segment))[-1]
    writer = MetadataLogWriter(last.next_offset)
    writer.append([MetadataRecord(MESSAGES[name](**fields), 0) for name, fields in records],
                  timestamp=last.entries[-1].timestamp if last.entries else 0,
                  leader_epoch=last.partition_leader_epoch)
    with segment.open("ab") as out:
        out.write(writer.encode())
    return target


def at_42_with_elr(source: Path, target: Path) -> Path:
    """``source`` upgraded to 4.2-IV1 (level 29) with eligible.leader.replicas.version 1."""
    return with_records(source, target,
                        ("FeatureLevelRecord", {"name": "metadata.version", "feature_level": 29}),
                        ("FeatureLevelRecord", {"name": "eligible.leader.replicas.version", "feature_level": 1}))
