"""kwire.logs.damage: telling a crash's incomplete tail from bytes that are no record batch at all,
on the first batch of the Kafka 3.9.0 node's metadata log."""
from __future__ import annotations

import struct
import zlib

import pytest
from crc32c import crc32c

from kwire.logs.damage import (
    CRC_MISMATCH,
    DAMAGES,
    EMPTY,
    NOT_A_BATCH,
    TRUNCATED,
    UNDECODABLE,
    UNKNOWN_RECORD,
    diagnose,
    in_file,
    incomplete_tail,
    not_a_batch,
)
from kwire.logs.metadata_log import read_metadata_log
from kwire.wire.errors import CorruptRecordError, DecodeError
from tests.paths import KRAFT_390

SEGMENT = KRAFT_390 / "__cluster_metadata-0" / "00000000000000000000.log"


@pytest.fixture(scope="module")
def real() -> bytes:
    return SEGMENT.read_bytes()[:4096]


def test_a_real_batch_header_may_be_a_batch(real):
    assert not_a_batch(real[:17]) is None
    assert not_a_batch(real[:5]) is None  # too little to say


def test_an_impossible_length_or_a_foreign_magic_is_not_a_batch(real):
    assert not_a_batch(real[:8] + b"\x00\x00\x00\x05" + real[12:17]) == \
        "its length field says 5 bytes, below the smallest entry (14)"
    assert not_a_batch(real[:16] + b"\x07") == "its magic byte is 7 (Kafka writes 0, 1 or 2)"


def test_a_cut_batch_is_incomplete_and_a_foreign_tail_is_not_a_batch(real):
    cut = incomplete_tail(real[:100], 0)
    assert type(cut) is DecodeError and str(cut) == "the last batch is incomplete (byte offset 0)"
    foreign = incomplete_tail(real[:16] + b"\x09" + real[17:100], 0)
    assert isinstance(foreign, CorruptRecordError)
    assert str(foreign) == "not a record batch: its magic byte is 9 (Kafka writes 0, 1 or 2) (byte offset 0)"


def test_the_metadata_log_reader_calls_foreign_bytes_what_they_are(real, tmp_path):
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(real[:16] + b"\xa4" + real[17:60])  # the first entry's magic byte, in a cut file
    with pytest.raises(CorruptRecordError, match="not a record batch: its magic byte is 164"):
        list(read_metadata_log(path))


def test_in_file_puts_the_file_first_and_the_hint_last(tmp_path):
    err = in_file(tmp_path / "x.log", DecodeError("the last batch is incomplete", offset=99952), hint="--until 1401")
    assert str(err) == f"{tmp_path / 'x.log'}: the last batch is incomplete (byte offset 99952); --until 1401"
    assert err.offset == 99952


# ------------------------------------------------------------------- one classification (issue 36)

def _first_batch(real: bytes) -> bytes:
    return real[:12 + struct.unpack_from(">i", real, 8)[0]]


def _with_crc(batch: bytearray) -> bytes:
    batch[17:21] = struct.pack(">I", crc32c(bytes(batch[21:])))  # what Kafka's writer computes (PyPI's crc32c)
    return bytes(batch)


def _judged(tmp_path, data: bytes, name: str = "00000000000000000000.log"):
    path = tmp_path / name
    path.write_bytes(data)
    return path, diagnose(path)


def test_a_checksum_that_fails_is_a_crc_mismatch_wherever_it_is(real, tmp_path):
    # at byte offset 0 too: a flipped bit in the first batch's attributes is no "not a record batch"
    flipped = bytearray(real)
    flipped[22] ^= 1
    path, found = _judged(tmp_path, bytes(flipped))
    stored = struct.unpack_from(">I", real, 17)[0]
    computed = crc32c(bytes(flipped[21:len(_first_batch(real))]))
    assert (found.damage, found.offset) == (CRC_MISMATCH, 0)
    assert str(found) == (f"{path}: CRC-32C mismatch in the record batch at base offset 0: stored 0x{stored:08x}, "
                          f"computed 0x{computed:08x} (byte offset 0)")
    # in_file gives the file's verdict whatever the reader that met it said
    assert str(in_file(path, CorruptRecordError("anything", offset=0), hint="do this")) == f"{found}; do this"


def test_a_whole_batch_whose_records_do_not_decode_is_undecodable_not_a_crc_mismatch(real, tmp_path):
    batch = bytearray(_first_batch(real))
    batch[61] = 0x01  # the first record's length varint: -1
    _, found = _judged(tmp_path, _with_crc(batch))
    assert (found.damage, found.offset) == (UNDECODABLE, 0)
    assert found.detail.startswith("the records of the batch at base offset 0 do not decode: record length -1")
    batch[62] ^= 1  # the same, with its checksum failing too: the checksum is judged first
    _, found = _judged(tmp_path, bytes(batch))
    assert found.damage == CRC_MISMATCH


def test_empty_truncated_and_whole_files(real, tmp_path):
    first = len(_first_batch(real))
    _, found = _judged(tmp_path, b"")
    assert (found.damage, found.offset, found.detail) == (
        EMPTY, 0, "the file is empty (0 bytes): no record batch to read")
    assert diagnose(tmp_path / "00000000000000000000.log", given=False) is None  # an empty active segment
    _, found = _judged(tmp_path, real[:first + 40])
    assert (found.damage, found.offset) == (TRUNCATED, first)
    _, found = _judged(tmp_path, real[:first + 11])  # not even a whole entry header left
    assert (found.damage, found.offset) == (TRUNCATED, first)
    _, found = _judged(tmp_path, real[:first])
    assert found is None
    _, found = _judged(tmp_path, real[:first + 16] + b"\x09" + real[first + 17:first + 60])
    assert (found.damage, found.offset) == (NOT_A_BATCH, first)
    assert set(DAMAGES) == {EMPTY, NOT_A_BATCH, TRUNCATED, CRC_MISMATCH, UNDECODABLE, UNKNOWN_RECORD}


def test_a_legacy_message_whose_crc_32_fails_is_a_crc_mismatch(tmp_path):
    # A magic 1 message as Kafka's LegacyRecord lays it out: crc (CRC-32 of magic..end), magic,
    # attributes, timestamp, key (null) and value; zlib's CRC-32 is the oracle.
    body = bytes([1, 0]) + struct.pack(">qi", 5, -1) + struct.pack(">i", 3) + b"abc"
    message = struct.pack(">I", zlib.crc32(body)) + body
    entry = struct.pack(">qi", 7, len(message)) + message
    assert _judged(tmp_path, entry)[1] is None
    damaged = entry[:-1] + b"b"
    _, found = _judged(tmp_path, damaged)
    assert (found.damage, found.offset) == (CRC_MISMATCH, 0)
    assert found.detail == (f"CRC-32 mismatch in the magic 1 message at offset 7: stored 0x{zlib.crc32(body):08x}, "
                            f"computed 0x{zlib.crc32(damaged[16:]):08x}")
