"""What is wrong with a Kafka file of record batches: one classification, one wording, used by every
command that reads one (``dump``, ``decode``, ``metadata *``, ``features *``).

The damage of a file is that of its first damaged entry, judged in this order:

==================  ==========================================================================
``empty``           the file holds no byte at all (a snapshot never is; a file named is read)
``not-a-batch``     the entry's header cannot start a record batch: a magic byte Kafka never
                    writes, an impossible length (4 KiB of random bytes is this, not a crash)
``truncated``       the last entry runs past the end of the file (a crash mid-write; Kafka's
                    own recovery cuts it off)
``crc-mismatch``    a whole batch whose checksum fails: its bytes changed after Kafka wrote them
``undecodable``     a batch whose checksum holds but whose records do not decode
``unknown-record``  a record of a type or version this kwire has no class for (only in strict mode)
==================  ==========================================================================

Every command says it the same way (:class:`DamagedFileError`: ``FILE: reason (byte offset P)``,
then what to do) and exits 2 (unusable input) unless the user asked to read past damage
(``--skip-undecodable``), when it is a finding (exit 1).
"""
from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

from crc32c import crc32c

from kwire.wire.errors import CorruptRecordError, DecodeError, KwireError

EMPTY = "empty"
NOT_A_BATCH = "not-a-batch"
TRUNCATED = "truncated"
CRC_MISMATCH = "crc-mismatch"
UNDECODABLE = "undecodable"
UNKNOWN_RECORD = "unknown-record"
#: Every class of damage, in the order they are judged.
DAMAGES = (EMPTY, NOT_A_BATCH, TRUNCATED, CRC_MISMATCH, UNDECODABLE, UNKNOWN_RECORD)

#: Magic bytes Kafka writes: 0 and 1 (legacy messages), 2 (record batches).
KAFKA_MAGICS = (0, 1, 2)
_HEADER = struct.Struct(">qi")  # baseOffset, length
_LOG_OVERHEAD = 12
_MAGIC_AT = 16
_CRC_V2 = struct.Struct(">I")  # at 17, covering attributes (21) to the end
_CRC_V2_AT, _CRC_V2_FROM = 17, 21
_CRC_LEGACY_AT = 12  # covering magic (16) to the end
_SMALLEST_ENTRY = 14  # a magic 0 message: crc, magic, attributes, key and value lengths


class DamagedFileError(CorruptRecordError):
    """Damage in a Kafka file: its class (``damage``, one of :data:`DAMAGES`), the ``file`` and the
    byte ``offset`` of the damaged entry; the text is ``FILE: reason (byte offset P)[; hint]``."""

    def __init__(self, damage: str, reason: str, *, file: str | os.PathLike, offset: int,
                 hint: str | None = None) -> None:
        self.damage = damage
        self.file = Path(file)
        self.hint = hint
        super().__init__(f"{self.file}: {reason}", offset=offset)
        self.detail = reason  # the reason without the file
        if hint:
            self.args = (f"{self.args[0]}; {hint}",)

    def with_hint(self, hint: str | None) -> DamagedFileError:
        return DamagedFileError(self.damage, self.detail, file=self.file, offset=self.offset or 0, hint=hint)


def not_a_batch(header: bytes) -> str | None:
    """Why the entry whose first bytes are ``header`` cannot be a record batch, or None when it may be one."""
    if len(header) >= _HEADER.size:
        _, length = _HEADER.unpack_from(header)
        if length < _SMALLEST_ENTRY:
            return f"its length field says {length} bytes, below the smallest entry ({_SMALLEST_ENTRY})"
    if len(header) > _MAGIC_AT and header[_MAGIC_AT] not in KAFKA_MAGICS:
        return f"its magic byte is {header[_MAGIC_AT]} (Kafka writes 0, 1 or 2)"
    return None


def crc_reason(magic: int, base_offset: int, stored: int, computed: int) -> str:
    """The one wording of a checksum that fails."""
    if magic == 2:
        return (f"CRC-32C mismatch in the record batch at base offset {base_offset}: "
                f"stored 0x{stored:08x}, computed 0x{computed:08x}")
    return f"CRC-32 mismatch in the magic {magic} message at offset {base_offset}: " \
           f"stored 0x{stored:08x}, computed 0x{computed:08x}"


def undecodable_reason(base_offset: int, reason: str) -> str:
    return f"the records of the batch at base offset {base_offset} do not decode: {reason}"


def empty_file(file: str | os.PathLike, *, holding: str = "record batch") -> DamagedFileError:
    """An empty file where one ``holding`` something was expected (a record batch; ``kwire frame``: a frame)."""
    return DamagedFileError(EMPTY, f"the file is empty (0 bytes): no {holding} to read", file=file, offset=0)


def truncated(file: str | os.PathLike, position: int) -> DamagedFileError:
    return DamagedFileError(TRUNCATED, "the last batch is incomplete", file=file, offset=position)


def judge_entry(entry: bytes, position: int, left: int, *, file: str | os.PathLike,
                err: DecodeError | None = None) -> DamagedFileError:
    """The damage of the entry whose bytes (as many as the file holds, up to its length) are
    ``entry``, at byte ``position`` with ``left`` bytes from there to the end of the file; ``err``
    is what the reader said (kept as the reason when nothing else is wrong)."""
    reason = not_a_batch(entry[:_MAGIC_AT + 1])
    if reason is not None:
        return DamagedFileError(NOT_A_BATCH, f"not a record batch: {reason}", file=file, offset=position)
    if len(entry) < _LOG_OVERHEAD or _LOG_OVERHEAD + _HEADER.unpack_from(entry)[1] > left:
        if isinstance(err, CorruptRecordError) and "size field is damaged" in err.reason:
            return DamagedFileError(NOT_A_BATCH, f"not a record batch: {err.reason}", file=file, offset=position)
        return truncated(file, position)
    base_offset, length = _HEADER.unpack_from(entry)
    whole = entry[:_LOG_OVERHEAD + length]
    magic = whole[_MAGIC_AT] if len(whole) > _MAGIC_AT else -1
    if magic == 2 and len(whole) >= _CRC_V2_FROM:
        stored, computed = _CRC_V2.unpack_from(whole, _CRC_V2_AT)[0], crc32c(whole[_CRC_V2_FROM:])
    elif magic in (0, 1):
        stored, computed = _CRC_V2.unpack_from(whole, _CRC_LEGACY_AT)[0], zlib.crc32(whole[_MAGIC_AT:])
    else:
        stored = computed = 0
    if stored != computed:
        return DamagedFileError(CRC_MISMATCH, crc_reason(magic, base_offset, stored, computed),
                                file=file, offset=position)
    detail = err.reason if err is not None else "it does not decode"
    return DamagedFileError(UNDECODABLE, undecodable_reason(base_offset, detail), file=file, offset=position)


def entry_at(path: str | os.PathLike, position: int) -> tuple[bytes, int, int]:
    """The bytes of the entry at ``position`` of the file (no more than the file holds), the
    position, and how many bytes the file has from there: :func:`judge_entry`'s arguments."""
    with open(path, "rb") as file:
        left = os.fstat(file.fileno()).st_size - position
        file.seek(position)
        head = file.read(_LOG_OVERHEAD)
        length = _HEADER.unpack_from(head)[1] if len(head) == _LOG_OVERHEAD else 0
        return head + file.read(max(0, min(length, left - _LOG_OVERHEAD))), position, left


def diagnose(path: str | os.PathLike, *, given: bool = True) -> DamagedFileError | None:
    """The first damage of the file of record batches at ``path``, or None when it reads whole.

    The one walk every command's verdict comes from (on the failure path: it reads the file again).
    An empty file is damage when ``given`` by name (an empty active segment in a directory is not)."""
    from kwire.records.reader import FileBatchReader

    reader = FileBatchReader(path, verify_crc=False)
    try:
        for batch in reader:
            if not batch.crc_valid:
                return judge_entry(*entry_at(path, reader.position), file=path)
            try:
                for _ in batch.records:
                    pass
            except DecodeError as err:
                return judge_entry(*entry_at(path, reader.position), file=path, err=err)
    except DecodeError as err:
        return judge_entry(*entry_at(path, reader.position), file=path, err=err)
    except OSError:
        return None  # unreadable, not damaged: the caller's own error says so
    if reader.truncated_at is not None:
        return judge_entry(*entry_at(path, reader.truncated_at), file=path)
    if given and reader.position == 0 and os.path.getsize(path) == 0:
        return empty_file(path)
    return None


def header_at(source: object, position: int) -> bytes:
    """The first bytes of the entry at ``position`` of ``source`` (a path or bytes); empty if unreadable."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source[position:position + _MAGIC_AT + 1])
    if isinstance(source, (str, os.PathLike)):
        try:
            with open(source, "rb") as file:
                file.seek(position)
                return file.read(_MAGIC_AT + 1)
        except OSError:
            return b""
    return b""


def incomplete_tail(source: object, position: int) -> DecodeError:
    """The error for an entry at ``position`` that runs past the end of ``source``: not a record
    batch when its header says it cannot be one, else an incomplete last batch (a crash mid-write)."""
    reason = not_a_batch(header_at(source, position))
    if reason is not None:
        return CorruptRecordError(f"not a record batch: {reason}", offset=position)
    return DecodeError("the last batch is incomplete", offset=position)


def in_file(path: str | os.PathLike, err: KwireError, *, hint: str | None = None) -> DecodeError:
    """``err``, met reading ``path``, as the file's verdict: the damage :func:`diagnose` finds (so
    every command words it the same), else ``err`` told about the file; then ``hint``."""
    if isinstance(err, DamagedFileError):
        return err.with_hint(hint)
    if os.path.isfile(path):
        damage = diagnose(path)
        if damage is not None:
            return damage.with_hint(hint)
    if not isinstance(err, DecodeError):
        err = DecodeError(str(err))
    located = type(err).__new__(type(err))
    DecodeError.__init__(located, f"{Path(path)}: {err.reason}", path=err.path, offset=err.offset)
    if hint:
        located.args = (f"{located.args[0]}; {hint}",)
    return located
