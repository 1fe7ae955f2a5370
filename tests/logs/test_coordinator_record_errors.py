"""A damaged ``__consumer_offsets`` record is one DecodeError that says what is wrong and where.

The bytes are laid out by hand from Kafka's own definitions (``OffsetCommitKey.json``: an int16
record type 1, then ``Group`` string, ``Topic`` string, ``Partition`` int32; each string an int16
length and its bytes), not written by kwire. Each test names the mutation survivors it kills."""
from __future__ import annotations

import struct

import pytest

from kwire.logs.coordinator_log import decode_coordinator_record
from kwire.wire.errors import DecodeError

KEY = struct.pack(">hh5sh5si", 1, 5, b"group", 5, b"topic", 0)  # 20 bytes: OffsetCommitKey


@pytest.mark.parametrize("strict", [False, True])
def test_bytes_after_the_key_are_counted_and_located(strict) -> None:
    """Kills ``kwire.logs.coordinator_log.x__decode_body__mutmut_14`` (the count of bytes left)."""
    with pytest.raises(DecodeError) as caught:
        decode_coordinator_record("__consumer_offsets", KEY + b"\0\0", None, strict=strict)
    assert caught.value.reason == "2 bytes left after OffsetCommitKey v0 in the key"
    assert caught.value.offset == len(KEY)


def test_a_value_too_short_for_its_version_prefix_is_named_the_value() -> None:
    """Kills ``kwire.logs.coordinator_log.x_decode_coordinator_record__mutmut_45`` (which part)."""
    with pytest.raises(DecodeError) as caught:
        decode_coordinator_record("__consumer_offsets", KEY, b"\x01")
    assert caught.value.reason == "coordinator record value of 1 bytes has no int16 prefix"
    assert caught.value.offset == 0
