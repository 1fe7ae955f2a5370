"""Iterating back-to-back batches: a buffer, a file, or a ``records`` field of a message.

A ``records`` region (a FetchResponse partition's records, a log segment, a snapshot) is a
sequence of entries that each start with ``offset int64 | size int32``; the magic byte at
offset 16 says whether the entry is a magic 2 batch or a legacy magic 0/1 message, and both
may be mixed. As in Kafka's ``ByteBufferLogInputStream``, an entry that does not fit in the
bytes left ends the iteration without an error (a broker cuts fetch responses at a byte limit,
and a crashed log ends mid-batch); the reader records where in :attr:`BatchReader.truncated_at`
and how many bytes it left in :attr:`BatchReader.truncated_bytes`.

That is a truncated tail only when nothing after it is a batch: a size field that runs past the
end while a complete, CRC-valid batch starts somewhere in the bytes after it is a damaged size
(``CorruptRecordError`` at the entry, naming where the next batch starts), not the end of the log.
A size below the smallest legal entry is corruption and raises too.

Nothing here reads past the region it was given, and no entry is copied: batches keep a
reference to the caller's buffer.
"""
from __future__ import annotations

import os
import re
import struct
import zlib
from abc import ABCMeta
from collections.abc import Iterator

from crc32c import crc32c

from kwire.records.batch import CRC_START, MAGIC, MIN_BATCH_LENGTH, RecordBatch, check_region, decode_batch
from kwire.records.compression import DEFAULT_MAX_DECOMPRESSED_SIZE
from kwire.records.legacy import MESSAGE_OVERHEAD_V0, LegacyBatch, decode_legacy_message
from kwire.records.record import Record
from kwire.wire.errors import CorruptRecordError, DecodeError

LOG_OVERHEAD = 12
_MAGIC_OFFSET = 16
_SIZE = struct.Struct(">i")
_FILE_CHUNK = 1024 * 1024

Batch = RecordBatch | LegacyBatch


def read_entry(
    buf,
    pos: int = 0,
    end: int | None = None,
    *,
    verify_crc: bool = True,
    max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
) -> Batch:
    """Decode the batch or legacy message at ``buf[pos]``, whichever its magic byte says."""
    limit = check_region(buf, pos, end)
    if limit - pos <= _MAGIC_OFFSET:
        raise DecodeError(f"entry header is truncated ({limit - pos} bytes left)", offset=pos)
    magic = buf[pos + _MAGIC_OFFSET]
    if magic == MAGIC:
        return decode_batch(
            buf, pos, limit, verify_crc=verify_crc, max_decompressed_size=max_decompressed_size
        )
    if magic in (0, 1):
        return decode_legacy_message(
            buf, pos, limit, verify_crc=verify_crc, max_decompressed_size=max_decompressed_size
        )
    raise CorruptRecordError(f"unknown record format magic {magic}", offset=pos)


_CRC = struct.Struct(">I")
_MAGIC_BYTE = re.compile(rb"[\x00-\x02]")  # a magic byte kwire reads: 0, 1 (legacy) or 2
_NON_ZERO = re.compile(rb"[^\x00]")
_LEGACY_UNUSED_ATTRIBUTES = 0xF0  # bits 0-2 codec, bit 3 timestamp type (magic 1); the rest unused


def next_batch_after(buf, start: int, end: int, *, legacy: bool = False) -> int | None:
    """Where the first complete magic 2 batch with a valid CRC-32C starts in ``buf[start:end]``;
    with ``legacy``, the first such batch or whole legacy magic 0/1 message with a valid CRC-32
    (reading on after damage in a log that holds legacy data).

    Only positions whose magic byte fits and whose length fits are checksummed, so a scan of a
    megabyte costs little; a false match needs a 32-bit checksum to agree by chance. The legacy
    scan tries many more positions (0 and 1 are common bytes), so only the recovery of damaged
    files asks for it, not the check of every truncated tail (:func:`_overrun`).
    """
    pos = start
    while True:
        if legacy:
            found = _MAGIC_BYTE.search(buf, pos + _MAGIC_OFFSET, end)
            magic_at = -1 if found is None else found.start()
        else:
            magic_at = buf.find(b"\x02", pos + _MAGIC_OFFSET, end)
        if magic_at < 0:
            return None
        candidate = magic_at - _MAGIC_OFFSET
        if candidate + LOG_OVERHEAD + (MESSAGE_OVERHEAD_V0 if legacy else MIN_BATCH_LENGTH) > end:
            return None
        (size,) = _SIZE.unpack_from(buf, candidate + 8)
        if size == 0 and legacy:  # zeros (a preallocated tail): no entry starts before a size can be non-zero
            non_zero = _NON_ZERO.search(buf, candidate + 8, end)
            if non_zero is None:
                return None
            pos = max(candidate + 1, non_zero.start() - 11)
            continue
        pos = candidate + 1
        entry_end = candidate + LOG_OVERHEAD + size
        if entry_end > end:
            continue
        if buf[magic_at] == MAGIC:
            if size >= MIN_BATCH_LENGTH and crc32c(memoryview(buf)[candidate + CRC_START:entry_end]) == \
                    _CRC.unpack_from(buf, magic_at + 1)[0]:
                return candidate
        elif _is_legacy_message(buf, candidate, entry_end):
            return candidate


def _is_legacy_message(buf, pos: int, end: int) -> bool:
    """Whether ``buf[pos:end]`` is one whole legacy message: its key and value lengths add up to its
    size (checked first: cheap, and it spares a CRC over every stray 0 or 1 byte) and its CRC-32 holds."""
    magic_at = pos + _MAGIC_OFFSET
    magic, attributes = buf[magic_at], buf[magic_at + 1]
    lengths_at = magic_at + 2 + (8 if magic == 1 else 0)  # after magic 1's timestamp
    if attributes & _LEGACY_UNUSED_ATTRIBUTES or lengths_at + 8 > end:
        return False
    (key_length,) = _SIZE.unpack_from(buf, lengths_at)
    value_length_at = lengths_at + 4 + max(key_length, 0)
    if key_length < -1 or value_length_at + 4 > end:
        return False
    (value_length,) = _SIZE.unpack_from(buf, value_length_at)
    if value_length < -1 or value_length_at + 4 + max(value_length, 0) != end:
        return False
    return zlib.crc32(memoryview(buf)[magic_at:end]) == _CRC.unpack_from(buf, pos + 12)[0]


def _overrun(buf, pos: int, size: int, end: int) -> CorruptRecordError | None:
    """The error for an entry at ``pos`` whose ``size`` runs past ``end``, when a batch follows it
    (so the size is damaged); None when the entry is a truncated tail."""
    following = next_batch_after(buf, pos + 1, end)
    if following is None:
        return None
    return CorruptRecordError(
        f"entry size {size} runs past the end ({end - pos - LOG_OVERHEAD} bytes follow its header), but a "
        f"valid batch starts {following - pos} bytes after this entry: its size field is damaged", offset=pos)


def _entry_size(buf, pos: int) -> int:
    (size,) = _SIZE.unpack_from(buf, pos + 8)
    if size < MESSAGE_OVERHEAD_V0:
        raise CorruptRecordError(
            f"entry size {size} is below the minimum of {MESSAGE_OVERHEAD_V0}", offset=pos
        )
    return size


class BatchReader:
    """Iterate the batches in ``buf[start:end]``; see the module docstring for truncation.

    After iteration, :attr:`truncated_at` is the position of an incomplete last entry (or None)
    and :attr:`position` the end of the last complete one.
    """

    def __init__(
        self,
        buf,
        start: int = 0,
        end: int | None = None,
        *,
        verify_crc: bool = True,
        max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
    ) -> None:
        self._buf = buf
        self.start = start
        self.end = check_region(buf, start, end)
        self.verify_crc = verify_crc
        self.max_decompressed_size = max_decompressed_size
        self.position = start
        self.truncated_at: int | None = None

    @property
    def truncated_bytes(self) -> int:
        return 0 if self.truncated_at is None else self.end - self.truncated_at

    def __iter__(self) -> Iterator[Batch]:
        buf, end = self._buf, self.end
        pos = self.position = self.start
        self.truncated_at = None
        while pos < end:
            left = end - pos
            if left < LOG_OVERHEAD:
                self.truncated_at = pos
                return
            size = _entry_size(buf, pos)
            if left < LOG_OVERHEAD + size:
                damaged = _overrun(buf, pos, size, end)
                if damaged is not None:
                    raise damaged
                self.truncated_at = pos
                return
            entry_end = pos + LOG_OVERHEAD + size
            yield read_entry(
                buf,
                pos,
                entry_end,
                verify_crc=self.verify_crc,
                max_decompressed_size=self.max_decompressed_size,
            )
            pos = self.position = entry_end

    def records(self) -> Iterator[Record]:
        """Every record of every complete batch, in order."""
        for batch in self:
            yield from batch.records


def iter_batches(buf, start: int = 0, end: int | None = None, **options) -> BatchReader:
    """Shorthand for :class:`BatchReader` (iterate it; inspect ``truncated_at`` afterwards)."""
    return BatchReader(buf, start, end, **options)


class FileBatchReader:
    """Iterate the batches of a log segment or snapshot file, one entry in memory at a time.

    ``source`` is a path or a binary file object positioned at the first entry. Reads are
    chunked, so a corrupt size field cannot make the reader allocate more than the file holds.
    :attr:`truncated_at` is the file position of an incomplete last entry (or None).
    Batches from this reader have ``position`` 0: each lives in its own buffer.
    """

    def __init__(
        self,
        source,
        *,
        verify_crc: bool = True,
        max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
    ) -> None:
        self.source = source
        self.verify_crc = verify_crc
        self.max_decompressed_size = max_decompressed_size
        self.truncated_at: int | None = None
        self.truncated_bytes = 0
        self.position = 0

    def __iter__(self) -> Iterator[Batch]:
        if isinstance(self.source, (str, os.PathLike)):
            with open(self.source, "rb") as file:
                yield from self._read(file)
        else:
            yield from self._read(self.source)

    def _read(self, file) -> Iterator[Batch]:
        pos = self.position = file.tell() if file.seekable() else 0
        self.truncated_at, self.truncated_bytes = None, 0
        while True:
            entry = _read_up_to(file, LOG_OVERHEAD)
            if not entry:
                return
            if len(entry) < LOG_OVERHEAD:
                self.truncated_at, self.truncated_bytes = pos, len(entry)
                return
            try:
                size = _entry_size(entry, 0)
            except DecodeError as err:
                raise _shifted(err, pos) from None
            entry += _read_up_to(file, size)
            if len(entry) < LOG_OVERHEAD + size:
                # everything to the end of the file is in ``entry`` now (it ran out before size)
                damaged = _overrun(entry, 0, size, len(entry))
                if damaged is not None:
                    raise _shifted(damaged, pos) from None
                self.truncated_at, self.truncated_bytes = pos, len(entry)
                return
            try:
                batch = read_entry(
                    entry,
                    0,
                    verify_crc=self.verify_crc,
                    max_decompressed_size=self.max_decompressed_size,
                )
            except DecodeError as err:
                raise _shifted(err, pos) from None
            yield batch
            pos = self.position = pos + len(entry)

    def records(self) -> Iterator[Record]:
        for batch in self:
            yield from batch.records


def _read_up_to(file, size: int) -> bytes:
    parts = []
    while size > 0:
        chunk = file.read(min(size, _FILE_CHUNK))
        if not chunk:
            break
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


def _shifted(err: DecodeError, base: int) -> DecodeError:
    """The same error with its offset moved from the entry's buffer to the file."""
    offset = None if err.offset is None else base + err.offset
    return type(err)(err.reason, path=err.path, offset=offset)


class RecordsView(metaclass=ABCMeta):  # noqa: B024  (abstract for register(): a virtual subclass, not a method to implement)
    """Lazy access to the bytes of a ``records`` field (FetchResponse, ProduceRequest, ...).

    Holds ``buf[start:end]`` without copying; iterating it yields batches, decoded one at a time
    when reached. ``bytes(view)`` gives the wire bytes back (for re-encoding).

    Generated readers skip ``__init__``: they check the bounds themselves and set the three slots
    (``_buf``, ``_start``, ``_end``) directly, which costs a third of a call to ``__init__``. The
    pure flavour makes the view on the field's first read (``GeneratedStruct._MADE_FROM_INPUT``),
    the compiled flavour one per partition. Keep those three slots (generator/emit/ops.py,
    ``RecordsOp``).

    A compiled build of the codecs has a native twin of this class, compiled from this very
    source (``kwire.generator.native.inline.records_view_source``), so that its readers make a
    view with one allocation and direct slot stores; the twin registers itself here (hence
    ``ABCMeta``), so ``isinstance(view, RecordsView)`` holds for the views of either build.
    """

    __slots__ = ("_buf", "_start", "_end")

    def __init__(self, buf, start: int = 0, end: int | None = None) -> None:
        self._buf, self._start, self._end = buf, start, check_region(buf, start, end)

    @property
    def raw(self) -> memoryview:
        return memoryview(self._buf)[self._start:self._end]

    def __len__(self) -> int:
        return self._end - self._start

    def __bytes__(self) -> bytes:
        return bytes(self.raw)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RecordsView):
            return self.raw == other.raw
        if isinstance(other, (bytes, bytearray, memoryview)):
            return self.raw == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def batches(self, **options) -> BatchReader:
        """A reader over the batches (options as :class:`BatchReader`)."""
        return BatchReader(self._buf, self._start, self._end, **options)

    def __iter__(self) -> Iterator[Batch]:
        return iter(self.batches())

    def records(self, **options) -> Iterator[Record]:
        return self.batches(**options).records()

    def __repr__(self) -> str:
        return f"RecordsView({len(self)} bytes)"
