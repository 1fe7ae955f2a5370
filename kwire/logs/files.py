"""What a file in a Kafka data directory is: the one rule ``kwire dump`` and ``kwire decode`` share.

Walking a directory, a file is judged by its name, as Kafka names them: ``quorum-state``,
``bootstrap.checkpoint``, ``<offset>-<epoch>.checkpoint`` snapshots, numbered ``.log`` segments and
their ``.index``, ``.timeindex``, ``.txnindex`` and producer-state ``.snapshot`` files, the text
state files (``leader-epoch-checkpoint``, ``partition.metadata``, the offset checkpoints), and
``*.batch`` files of record batches (hidden names are passed over; a broker's own ``server.log``
is not a segment). A file given by name is read as what its content says it is when its name says nothing:
record batches, or a quorum-state JSON document.
"""
from __future__ import annotations

import json
import os
import struct
from collections.abc import Iterator
from pathlib import Path

from kwire.logs.checkpoints import LEADER_EPOCH_CHECKPOINT, OFFSET_CHECKPOINTS, PARTITION_METADATA
from kwire.logs.logdir import (
    INDEX_SUFFIX,
    LOG_SUFFIX,
    PRODUCER_SNAPSHOT_SUFFIX,
    TIME_INDEX_SUFFIX,
    TXN_INDEX_SUFFIX,
    parse_numbered_file_name,
)
from kwire.logs.metadata_log import BOOTSTRAP_FILE_NAME, QUORUM_STATE_FILE_NAME, parse_snapshot_file_name

#: Kinds of file that hold record batches back to back.
BATCH_KINDS = frozenset({"segment", "snapshot", "bootstrap", "batches"})
#: Every kind, in the words ``kwire dump`` uses.
KINDS = (*sorted(BATCH_KINDS), "offset-index", "time-index", "txn-index", "producer-snapshot", "quorum-state",
         "leader-epoch-checkpoint", "offset-checkpoint", "partition-metadata")
#: The state files of text checkpoints (:mod:`kwire.logs.checkpoints`), by name.
_CHECKPOINT_KINDS = {LEADER_EPOCH_CHECKPOINT: "leader-epoch-checkpoint", PARTITION_METADATA: "partition-metadata",
                     **dict.fromkeys(OFFSET_CHECKPOINTS, "offset-checkpoint")}

_NUMBERED_KINDS = {
    LOG_SUFFIX: "segment",
    INDEX_SUFFIX: "offset-index",
    TIME_INDEX_SUFFIX: "time-index",
    TXN_INDEX_SUFFIX: "txn-index",
    PRODUCER_SNAPSHOT_SUFFIX: "producer-snapshot",
}
_ENTRY_HEADER = struct.Struct(">qib")  # baseOffset, length, partitionLeaderEpoch's first byte...
_MAGIC_AT = 16


def kind_by_name(name: str) -> str | None:
    """The kind a file's name gives it, or None when the name says nothing."""
    if name == QUORUM_STATE_FILE_NAME:
        return "quorum-state"
    if name == BOOTSTRAP_FILE_NAME:
        return "bootstrap"
    if name in _CHECKPOINT_KINDS:
        return _CHECKPOINT_KINDS[name]
    if parse_snapshot_file_name(name):
        return "snapshot"
    numbered = parse_numbered_file_name(name)
    if numbered:
        return _NUMBERED_KINDS.get(numbered[1])
    if name.endswith(".batch"):
        return "batches"
    return None


def kind_by_content(path: str | os.PathLike) -> str | None:
    """``batches`` when the file starts with a record-batch entry, ``quorum-state`` for Kafka's
    quorum-state JSON, else None."""
    with open(path, "rb") as file:
        head = file.read(64)
    if len(head) > _MAGIC_AT:
        length = int.from_bytes(head[8:12], "big", signed=True)
        if head[_MAGIC_AT] in (0, 1, 2) and length >= 14:
            return "batches"
    if head.lstrip().startswith(b"{"):
        try:
            document = json.loads(Path(path).read_text(encoding="utf-8"))
        except (UnicodeDecodeError, ValueError):
            return None
        if isinstance(document, dict) and "leaderEpoch" in document:
            return "quorum-state"
    return None


def kind_of(path: str | os.PathLike, *, given: bool) -> str | None:
    """A file's kind: by name, and for a file the user ``given`` by name, by content otherwise."""
    kind = kind_by_name(os.path.basename(path))
    if kind is None and given:
        kind = kind_by_content(path)
    return kind


def transient_state(name: str) -> tuple[str, str] | None:
    """``(kind, suffix)`` of a segment file Kafka renamed while deleting, cleaning or swapping it
    (``00000000000000000000.log.deleted`` is a ``segment``, ``.deleted``), else None. Kafka does
    not read such a file as the log: only a reader asked for them takes them."""
    stem, suffix = os.path.splitext(name)
    if suffix not in TRANSIENT_SUFFIXES or parse_numbered_file_name(stem) is None:
        return None
    kind = kind_by_name(stem)
    return (kind, suffix) if kind is not None else None


def _kind_by_name_or_state(name: str, transient: bool) -> str | None:
    state = transient_state(name) if transient else None
    return state[0] if state else kind_by_name(name)


def kind_in_walk(relative: str, *, transient: bool = False) -> str | None:
    """The kind of a file a walk meets, by its ``/``-separated path below the walked root: by its
    name, and None under a hidden folder or for a hidden name (a temporary file, a lock). The one
    rule of every walk, local (:func:`kafka_files`) or through pyarrow.fs (``kwire.arrow.logfiles``).
    With ``transient``, segment files renamed ``.deleted``, ``.cleaned`` or ``.swap`` too."""
    parts = relative.split("/")
    if any(part.startswith(".") for part in parts):
        return None
    return _kind_by_name_or_state(parts[-1], transient)


def kafka_files(root: str | os.PathLike, *, transient: bool = False) -> Iterator[tuple[Path, str]]:
    """``(path, kind)`` of every file ``root`` holds that has a kind: the file itself when it is one
    (judged by content too), else a recursive walk in name order, judged by name. With
    ``transient``, segment files renamed ``.deleted``, ``.cleaned`` or ``.swap`` too, as their kind."""
    root = Path(root)
    if root.is_file():
        kind = _kind_by_name_or_state(root.name, transient) or kind_of(root, given=True)
        if kind is not None:
            yield root, kind
        return
    found = []
    for directory, subdirs, names in os.walk(root):
        subdirs[:] = [d for d in subdirs if not d.startswith(".")]  # not entered: kind_in_walk passes them over
        for name in names:
            path = Path(directory) / name
            kind = kind_in_walk(path.relative_to(root).as_posix(), transient=transient)
            if kind is not None:
                found.append((path, kind))
    yield from sorted(found)


#: Files Kafka keeps in a data directory that hold no record batches, and what each is (so that
#: ``kwire dump -v`` can say why it passed over them).
STANDARD_FILES = {
    "meta.properties": "properties file of the node's identity (node.id, cluster.id, directory.id)",
    "leader-epoch-checkpoint": "text checkpoint of the partition's leader epochs and the offsets they start at",
    "partition.metadata": "file naming the partition's topic id",
    "recovery-point-offset-checkpoint": "text checkpoint of the offset each partition is flushed to",
    "replication-offset-checkpoint": "text checkpoint of each partition's high watermark",
    "log-start-offset-checkpoint": "text checkpoint of each partition's log start offset",
    "cleaner-offset-checkpoint": "text checkpoint of how far the log cleaner has compacted each partition",
    ".lock": "lock file a running node holds on the directory",
    ".kafka_cleanshutdown": "marker of a clean shutdown",
}
#: Suffixes Kafka gives a segment's files while it deletes, cleans or swaps them.
TRANSIENT_SUFFIXES = {".deleted": "scheduled for deletion", ".cleaned": "being written by the log cleaner",
                      ".swap": "being swapped in by the log cleaner"}


def skipped_files(root: str | os.PathLike) -> Iterator[tuple[Path, str]]:
    """``(path, why)`` of every file under the directory ``root`` that :func:`kafka_files` passes over."""
    root = Path(root)
    if not root.is_dir():
        return
    for directory, subdirs, names in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        for name in sorted(names):
            if (kind_by_name(name) is not None or transient_state(name)) and not name.startswith("."):
                continue  # dump reads it
            suffix = os.path.splitext(name)[1]
            if name in STANDARD_FILES:
                why = f"Kafka's {STANDARD_FILES[name]}; it holds no record batches"
            elif suffix in TRANSIENT_SUFFIXES:
                why = f"a segment file {TRANSIENT_SUFFIXES[suffix]} (Kafka does not read it as the log)"
            elif name.startswith("."):
                why = "a hidden file"
            else:
                why = "not a file Kafka writes in a data directory (judged by its name)"
            yield Path(directory) / name, why
