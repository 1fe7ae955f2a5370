"""kwire.logs.damage: telling a crash's incomplete tail from bytes that are no record batch at all,
on the first batch of the Kafka 3.9.0 node's metadata log."""
from __future__ import annotations

import pytest

from kwire.logs.damage import in_file, incomplete_tail, not_a_batch
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
    first = in_file(tmp_path / "x.log", CorruptRecordError("CRC-32C mismatch", offset=0))
    assert str(first) == f"{tmp_path / 'x.log'}: not a record batch (CRC-32C mismatch) (byte offset 0)"
    assert isinstance(first, CorruptRecordError)
