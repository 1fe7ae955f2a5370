"""Finding the files of a Kafka data directory that hold record batches, and what each one is.

A broker's log directory has one folder per partition, named ``<topic>-<partition>``; inside,
``*.log`` segments hold back-to-back record batches, next to indexes, producer-state
``*.snapshot`` files and small text files that do not. A KRaft node keeps its metadata log in
``__cluster_metadata-0`` (segments plus ``*.checkpoint`` snapshots) and a ``bootstrap.checkpoint``
in the data directory. The group and transaction coordinators write ``__consumer_offsets-N`` and
``__transaction_state-N``. Anything else given by name is read as a plain file of batches.

The *kind* of a file (:class:`Kind`) decides which decoded-record columns it can give.

A root may also be a URI (``s3://bucket/prefix``, ``gs://...``, ``hdfs://...``): it is listed
through ``pyarrow.fs`` (``storage.py``) and judged by the same names.
"""
from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from kwire.arrow import storage
from kwire.logs.coordinator_log import OFFSETS_TOPIC, SHARE_STATE_TOPIC, TRANSACTIONS_TOPIC
from kwire.logs.files import BATCH_KINDS, kafka_files, kind_in_walk
from kwire.logs.logdir import INDEX_SUFFIX, LOG_SUFFIX, parse_segment_file_name
from kwire.logs.metadata_log import METADATA_TOPIC as METADATA_LOG_TOPIC
from kwire.logs.metadata_log import REMOTE_LOG_METADATA_TOPIC
from kwire.wire.errors import KwireError


class Kind(StrEnum):
    PARTITION_LOG = "partition_log"
    METADATA_LOG = "metadata_log"
    METADATA_SNAPSHOT = "metadata_snapshot"
    GROUP_COORDINATOR_LOG = "group_coordinator_log"
    TRANSACTION_COORDINATOR_LOG = "transaction_coordinator_log"
    SHARE_COORDINATOR_LOG = "share_coordinator_log"
    REMOTE_LOG_METADATA_LOG = "remote_log_metadata_log"
    BATCH_FILE = "batch_file"


METADATA_TOPIC = METADATA_LOG_TOPIC
GROUP_TOPIC = OFFSETS_TOPIC
TRANSACTION_TOPIC = TRANSACTIONS_TOPIC
SHARE_TOPIC = SHARE_STATE_TOPIC

# `<topic>-<partition>`, optionally with the `.<uuid>-future|delete|stray` suffix Kafka gives a
# partition folder that is being moved or deleted.
_PARTITION_DIR = re.compile(r"^(?P<topic>.+)-(?P<partition>\d+)(?:\.[0-9a-f]{32}-(?:future|delete|stray))?$")


@dataclass(frozen=True)
class LogFile:
    """One file to read, with what its location says about it.

    ``path`` is an absolute local path, or the URI of a remote file; then ``filesystem`` is the
    ``pyarrow.fs`` file system to read it from and ``fs_path`` its path inside that, and for a
    segment with Kafka's offset index beside it, ``offset_index`` is the index's path there and
    ``base_offset`` the segment's (from its name): planning takes its cuts from the index.
    """

    path: str
    size: int
    kind: Kind
    topic: str | None
    partition: int | None
    filesystem: Any = field(default=None, compare=False, repr=False)
    fs_path: str | None = None
    offset_index: str | None = None
    base_offset: int | None = None


def topic_partition(directory: str) -> tuple[str | None, int | None]:
    """(topic, partition) from a ``topic-N`` folder name, or (None, None)."""
    match = _PARTITION_DIR.match(directory)
    if not match:
        return None, None
    return match["topic"], int(match["partition"])


def kind_of(path: str | os.PathLike, topic: str | None) -> Kind:
    name = os.path.basename(path)
    if name == "bootstrap.checkpoint":
        return Kind.METADATA_SNAPSHOT
    if topic == METADATA_TOPIC:
        return Kind.METADATA_SNAPSHOT if name.endswith(".checkpoint") else Kind.METADATA_LOG
    if name.endswith(".log") and topic is not None:
        if topic == GROUP_TOPIC:
            return Kind.GROUP_COORDINATOR_LOG
        if topic == TRANSACTION_TOPIC:
            return Kind.TRANSACTION_COORDINATOR_LOG
        if topic == SHARE_TOPIC:
            return Kind.SHARE_COORDINATOR_LOG
        if topic == REMOTE_LOG_METADATA_TOPIC:
            return Kind.REMOTE_LOG_METADATA_LOG
        return Kind.PARTITION_LOG
    return Kind.BATCH_FILE


def describe(path: str | os.PathLike) -> LogFile:
    """A :class:`LogFile` for one existing file."""
    full = os.path.abspath(path)
    topic, partition = topic_partition(os.path.basename(os.path.dirname(full)))
    return LogFile(full, os.path.getsize(full), kind_of(full, topic), topic, partition)


def describe_remote(entry: storage.RemoteEntry, filesystem: Any, listed: Collection[str] = ()) -> LogFile:
    """A :class:`LogFile` for a file found under a URI (topic and partition from its folder; the
    offset index of a segment when ``listed`` names one beside it)."""
    folder = posixpath.basename(posixpath.dirname(entry.fs_path))
    topic, partition = topic_partition(folder)
    base_offset = parse_segment_file_name(posixpath.basename(entry.fs_path))
    index = None if base_offset is None else entry.fs_path[: -len(LOG_SUFFIX)] + INDEX_SUFFIX
    if index not in listed:
        index = base_offset = None
    return LogFile(entry.uri, entry.size, kind_of(entry.fs_path, topic), topic, partition, filesystem, entry.fs_path,
                   index, base_offset)


def _remote_batch_files(root: str) -> list[LogFile]:
    """The files under a URI that the local walk would take (see :func:`discover`)."""
    filesystem, entries = storage.walk_remote(root)
    if len(entries) == 1 and not entries[0].relative:  # the URI names a file: taken whatever its name
        return [describe_remote(entries[0], filesystem)]
    listed = {entry.fs_path for entry in entries}
    return [describe_remote(entry, filesystem, listed) for entry in entries
            if kind_in_walk(entry.relative) in BATCH_KINDS]  # the local walk's rule


def discover(*roots: str | os.PathLike) -> list[LogFile]:
    """Every file of record batches under ``roots`` (files or directories, local or URIs), sorted
    by path, chosen by the rule ``kwire dump`` uses too (:mod:`kwire.logs.files`): a directory is
    walked for the files Kafka's names say hold batches (segments, snapshots,
    ``bootstrap.checkpoint``) and ``*.batch`` files; a file given directly is taken whatever its
    name."""
    found: dict[str, LogFile] = {}
    for root in roots:
        if storage.is_remote(root):
            for entry in _remote_batch_files(os.fspath(root)):
                found[entry.path] = entry
            continue
        root = storage.local_path(root)
        if os.path.isfile(root):
            entry = describe(root)
            found[entry.path] = entry
        elif os.path.isdir(root):
            for path, kind in kafka_files(root):
                if kind in BATCH_KINDS:
                    entry = describe(path)
                    found[entry.path] = entry
        else:
            raise KwireError(f"no such file or directory: {root}")
    return [found[path] for path in sorted(found)]


def refuse_empty(files: list[LogFile], root: str | os.PathLike, *, skip_undecodable: bool = False) -> list[LogFile]:
    """``files``, unless there is nothing to read: an empty file named by itself, or an empty snapshot
    (a snapshot never is; read past with ``skip_undecodable``) is damage, worded as every command
    words it (:mod:`kwire.logs.damage`); no bytes at all under ``root`` is unusable input too.
    An empty active segment in a directory is not damage: Kafka rolls to one."""
    from kwire.logs import damage

    named = not storage.is_remote(root) and os.path.isfile(storage.local_path(root))
    for entry in files:
        snapshot = entry.kind == Kind.METADATA_SNAPSHOT and not skip_undecodable
        if entry.size == 0 and (named or snapshot):
            raise damage.empty_file(storage.local_path(root) if named else entry.path)
    if not any(entry.size for entry in files):
        read = f"{len(files)} empty file{'s' if len(files) != 1 else ''}" if files else "no file of them"
        raise KwireError(f"{root}: no record batches to decode ({read}): looked for log segments, snapshots, "
                         f"bootstrap.checkpoint and *.batch files")
    return files
