"""Kafka's small text state files: ``leader-epoch-checkpoint``, the offset checkpoints and ``partition.metadata``.

Read as Kafka 3.9 reads them (``CheckpointFile.CheckpointReadBuffer``, ``LeaderEpochCheckpointFile``,
``OffsetCheckpointFile``, ``PartitionMetadataReadBuffer``; branch 3.9 at c821449):

- a checkpoint is a version line (0), a count line, then that many entries, one a line, its fields
  split on white space: ``EPOCH START_OFFSET`` in a ``leader-epoch-checkpoint``, ``TOPIC PARTITION
  OFFSET`` in ``replication-offset-checkpoint``, ``recovery-point-offset-checkpoint``,
  ``log-start-offset-checkpoint`` and ``cleaner-offset-checkpoint``. An empty file, or one with the
  version line only, holds no entries (Kafka creates the file empty before its first write);
- ``partition.metadata`` is ``version: 0`` then ``topic_id: <base64 id>`` (any version from 0 up is
  read; the zero id is refused).

Damage is one :class:`CheckpointError` in Kafka's words (``Malformed line in checkpoint file [F]:
LINE``, the file named by its absolute path as Kafka names it) with the line number and byte offset;
where Kafka's reader fails with an unchecked exception (a number that does not fit, a missing line,
bytes that are not UTF-8) the error says so too.
Lines end as ``BufferedReader.readLine`` ends them: ``\\n``, ``\\r\\n`` or ``\\r``.
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

from kwire.wire.errors import DecodeError

LEADER_EPOCH_CHECKPOINT = "leader-epoch-checkpoint"
PARTITION_METADATA = "partition.metadata"
#: The per-directory offset checkpoints, and what each offset is
OFFSET_CHECKPOINTS = {
    "replication-offset-checkpoint": "high watermark",
    "recovery-point-offset-checkpoint": "recovery point",
    "log-start-offset-checkpoint": "log start offset",
    "cleaner-offset-checkpoint": "cleaned up to",
}
CHECKPOINT_VERSION = 0  # CurrentVersion of every checkpoint Kafka 3.9 writes
MAX_FILE_BYTES = 64 << 20  # a broker with 100k partitions writes a few MB; more is not a checkpoint

_LINE_END = re.compile(r"\r\n|\r|\n")
_JAVA_WHITE_SPACE = re.compile(r"[ \t\n\x0b\f\r]+")  # Java's \s
_PARTITION_METADATA_SEPARATOR = re.compile(r":[ \t\n\x0b\f\r]+")  # ":\s+"
_JAVA_INTEGER = re.compile(r"[+-]?\d+")  # Integer.parseInt/Long.parseLong: a sign, decimal digits (any script)
_UUID_TEXT = re.compile(r"[A-Za-z0-9_-]{22}(==)?")
INT32 = (-(1 << 31), (1 << 31) - 1)
INT64 = (-(1 << 63), (1 << 63) - 1)


class CheckpointError(DecodeError):
    """A state file Kafka would not read: the reason, its line (1-based) and that line's byte offset."""

    def __init__(self, reason: str, *, line: int | None = None, offset: int | None = None) -> None:
        super().__init__(reason, offset=offset)
        self.line = line
        if line is not None:
            where = f"line {line}" + (f", byte offset {offset}" if offset is not None else "")
            self.args = (f"{reason} ({where})",)


@dataclass(frozen=True)
class EpochEntry:
    """One line of a ``leader-epoch-checkpoint`` (Kafka's ``EpochEntry``): the epoch and its first offset."""

    epoch: int
    start_offset: int


@dataclass(frozen=True)
class OffsetEntry:
    """One line of an offset checkpoint (an entry of ``OffsetCheckpointFile``'s ``Map<TopicPartition, Long>``)."""

    topic: str
    partition: int
    offset: int


@dataclass(frozen=True)
class PartitionMetadata:
    """A ``partition.metadata`` file (Kafka's ``checkpoint.PartitionMetadata``)."""

    version: int
    topic_id: UUID


@dataclass(frozen=True)
class _Line:
    """One line of a state file, where it stands in the file."""

    number: int  # 1-based
    offset: int  # byte offset of its first character
    text: str


def _lines(path: Path, data: bytes) -> list[_Line]:
    """The lines ``BufferedReader.readLine`` returns, with their numbers and byte offsets."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CheckpointError(f"Malformed checkpoint file [{path}]: not UTF-8 (Kafka's reader fails with "
                              f"MalformedInputException)", offset=err.start) from None
    lines = []
    start = number = byte_offset = 0
    for match in _LINE_END.finditer(text):
        number += 1
        lines.append(_Line(number, byte_offset, text[start:match.start()]))
        byte_offset += len(text[start:match.end()].encode())
        start = match.end()
    if start < len(text):
        lines.append(_Line(number + 1, byte_offset, text[start:]))
    return lines


def java_split(pattern: re.Pattern[str], text: str) -> list[str]:
    """``Pattern.split``: a leading empty part kept, trailing empty parts dropped."""
    if not pattern.search(text):
        return [text]
    parts = pattern.split(text)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def _read(path: str | os.PathLike, data: bytes | None) -> tuple[Path, bytes]:
    """The file's bytes, and its absolute path: Kafka's messages name the file so."""
    path = Path(path).absolute()
    if data is None:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise CheckpointError(f"{path}: {path.stat().st_size} bytes, more than a checkpoint file holds "
                                  f"(kwire reads up to {MAX_FILE_BYTES})", offset=0)
        data = path.read_bytes()
    return path, data


def _number(path: Path, line: _Line, field: str, bounds: tuple[int, int]) -> int:
    """A field as ``Integer.parseInt``/``Long.parseLong`` reads it, else the malformed-line error."""
    if _JAVA_INTEGER.fullmatch(field):
        value = int(field)
        if bounds[0] <= value <= bounds[1]:
            return value
    kind = "int" if bounds == INT32 else "long"
    raise CheckpointError(f"Malformed line in checkpoint file [{path}]: {line.text} ({field!r} is not a Java "
                          f"{kind}; Kafka's reader fails with NumberFormatException: For input string: "
                          f"\"{field}\")", line=line.number, offset=line.offset)


def _checkpoint_lines(path: Path, data: bytes) -> tuple[int, list[_Line]]:
    """``CheckpointReadBuffer.read`` up to the entries: (expected count, entry lines)."""
    lines = _lines(path, data)
    if not lines:
        return 0, []
    version_line = lines[0]
    if not _JAVA_INTEGER.fullmatch(version_line.text) or not INT32[0] <= int(version_line.text) <= INT32[1]:
        raise CheckpointError(f"Malformed line in checkpoint file [{path}]: {version_line.text}",
                              line=1, offset=version_line.offset)
    version = int(version_line.text)
    if version != CHECKPOINT_VERSION:
        raise CheckpointError(f"Unrecognised version:{version}, expected version: {CHECKPOINT_VERSION} in "
                              f"checkpoint file at: {path}", line=1, offset=version_line.offset)
    if len(lines) == 1:
        return 0, []
    count_line = lines[1]
    if not _JAVA_INTEGER.fullmatch(count_line.text) or not INT32[0] <= int(count_line.text) <= INT32[1]:
        raise CheckpointError(f"Malformed line in checkpoint file [{path}]: {count_line.text}",
                              line=2, offset=count_line.offset)
    expected = int(count_line.text)
    if expected < 0:
        raise CheckpointError(f"Malformed line in checkpoint file [{path}]: {count_line.text} (a negative count; "
                              f"Kafka's reader fails with IllegalArgumentException: Illegal Capacity: {expected})",
                              line=2, offset=count_line.offset)
    return expected, lines[2:]


def _check_count(path: Path, expected: int, found: int, data: bytes) -> None:
    if found != expected:
        raise CheckpointError(f"Expected [{expected}] entries in checkpoint file [{path}], but found only [{found}]",
                              offset=len(data))


def _read_entries(path: str | os.PathLike, data: bytes | None, width: int, entry: Callable) -> list:
    """The entries of a checkpoint file of lines of ``width`` fields, each made by
    ``entry(path, line, fields)`` (Kafka's ``CheckpointFile`` with its per-file formatter)."""
    path, data = _read(path, data)
    expected, lines = _checkpoint_lines(path, data)
    entries = []
    for line in lines:
        fields = java_split(_JAVA_WHITE_SPACE, line.text)
        if len(fields) != width:
            raise CheckpointError(f"Malformed line in checkpoint file [{path}]: {line.text}",
                                  line=line.number, offset=line.offset)
        entries.append(entry(path, line, fields))
    _check_count(path, expected, len(entries), data)
    return entries


def read_leader_epoch_checkpoint(path: str | os.PathLike, data: bytes | None = None) -> list[EpochEntry]:
    """The entries of a ``leader-epoch-checkpoint``: each leader epoch and the offset it starts at."""
    return _read_entries(path, data, 2, lambda path, line, fields: EpochEntry(
        _number(path, line, fields[0], INT32), _number(path, line, fields[1], INT64)))


def read_offset_checkpoint(path: str | os.PathLike, data: bytes | None = None) -> list[OffsetEntry]:
    """The entries of an offset checkpoint: topic, partition, offset."""
    return _read_entries(path, data, 3, lambda path, line, fields: OffsetEntry(
        fields[0], _number(path, line, fields[1], INT32), _number(path, line, fields[2], INT64)))


def read_partition_metadata(path: str | os.PathLike, data: bytes | None = None) -> PartitionMetadata:
    """``partition.metadata``: its version and the partition's topic id."""
    from kwire.wire.jsonform import uuid_from_text

    path, data = _read(path, data)
    lines = _lines(path, data)
    if not lines:
        raise CheckpointError(f"Malformed partition metadata file [{path}]: it is empty (Kafka's reader fails with "
                              f"a NullPointerException)", offset=0)
    version_line = lines[0]
    fields = java_split(_PARTITION_METADATA_SEPARATOR, version_line.text)
    if len(fields) != 2 or not _JAVA_INTEGER.fullmatch(fields[1]) or not INT32[0] <= int(fields[1]) <= INT32[1]:
        raise CheckpointError(f"Malformed line in checkpoint file [{path}]: {version_line.text}",
                              line=1, offset=version_line.offset)
    version = int(fields[1])
    if version < 0:
        raise CheckpointError(f"Unrecognized version of partition metadata file + ({path}): {version}",
                              line=1, offset=version_line.offset)
    if len(lines) < 2:
        raise CheckpointError(f"Malformed partition metadata file [{path}]: no topic_id line after the version "
                              f"(Kafka's reader fails with a NullPointerException)", line=2, offset=len(data))
    id_line = lines[1]
    fields = java_split(_PARTITION_METADATA_SEPARATOR, id_line.text)
    if len(fields) != 2:
        raise CheckpointError(f"Malformed line in checkpoint file [{path}]: {id_line.text}",
                              line=2, offset=id_line.offset)
    if not _UUID_TEXT.fullmatch(fields[1]):
        raise CheckpointError(f"Malformed line in checkpoint file [{path}]: {id_line.text} ({fields[1]!r} is not a "
                              f"base64 topic id of 16 bytes; Kafka's reader fails with IllegalArgumentException)",
                              line=2, offset=id_line.offset)
    topic_id = uuid_from_text(fields[1].rstrip("="))
    if topic_id.int == 0:
        raise CheckpointError(f"Invalid topic ID in partition metadata file ({path})", line=2, offset=id_line.offset)
    return PartitionMetadata(version, topic_id)
