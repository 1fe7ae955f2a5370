"""Primitive readers and writers, checked against Kafka's wire rules and Python's struct module:
what the mutation run's sample left alive in kwire/wire (tests/README.md)."""
from __future__ import annotations

import json
import struct
import uuid

import pytest

from kwire.generated import CreateDelegationTokenRequest, SaslHandshakeRequest, SyncGroupRequest
from kwire.wire import primitives, struct_base
from kwire.wire.errors import DecodeError, EncodeError, UnsupportedVersionError
from kwire.wire.message import KeyedList, is_flexible
from kwire.wire.varint import uvarint
from tests.paths import KAFKA_DEFINITIONS

ODD_BYTES = bytes(range(0x81, 0x91))  # every byte different, so a byte read from the wrong place shows


def test_fixed_width_readers_agree_with_struct() -> None:
    assert struct_base.read_int8(b"\x00\xff", 1) == struct.unpack(">b", b"\xff")[0] == -1
    assert struct_base.read_int8(b"\x7f", 0) == 127
    assert struct_base.read_uint32(ODD_BYTES, 3) == struct.unpack_from(">I", ODD_BYTES, 3)[0]
    assert struct_base.read_int64(ODD_BYTES, 2) == struct.unpack_from(">q", ODD_BYTES, 2)[0]


def test_read_uuid_points_at_a_truncated_uuid() -> None:
    value = uuid.UUID("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0")
    assert struct_base.read_uuid(b"\x00" + value.bytes, 1) == (value, 17)
    with pytest.raises(DecodeError) as raised:
        struct_base.read_uuid(b"\x00" * 20, 5)
    assert (raised.value.reason, raised.value.offset) == ("truncated uuid", 5)


def test_read_count_names_a_truncated_array_length() -> None:
    with pytest.raises(DecodeError) as raised:
        struct_base.read_count(b"\x00\x00\x00", 0, False)
    assert (raised.value.reason, raised.value.offset) == ("truncated array length", 0)


def test_read_string_empty_null_and_truncated() -> None:
    # Kafka's classic string: int16 length, -1 is null, 0 is the empty string
    assert primitives.read_string(b"\x00\x00", 0) == ("", 2)
    assert primitives.read_string(b"\xff\xff", 0) == (None, 2)
    with pytest.raises(DecodeError) as raised:
        primitives.read_string(b"\x00\x00\x00", 2)  # one byte of the two-byte length
    assert (raised.value.reason, raised.value.offset) == ("truncated string length", 2)


def test_read_compact_string_nn_refuses_null_where_it_starts() -> None:
    with pytest.raises(DecodeError) as raised:
        primitives.read_compact_string_nn(b"\x07\x00", 1)  # compact length 0: null
    assert (raised.value.reason, raised.value.offset) == ("non-nullable string was null", 1)


@pytest.mark.parametrize(("read", "null", "value", "reason"), [
    ("read_string_nn", b"\xff\xff", b"\x00\x01a", "non-nullable string was null"),
    ("read_compact_string_nn", b"\x00", b"\x02a", "non-nullable string was null"),
    ("read_bytes_nn", b"\xff\xff\xff\xff", b"\x00\x00\x00\x01a", "non-nullable bytes were null"),
    ("read_compact_bytes_nn", b"\x00", b"\x02a", "non-nullable bytes were null"),
])
def test_each_non_null_reader_refuses_null_at_its_start_and_reads_a_value(read, null, value, reason) -> None:
    reader = getattr(primitives, read)
    with pytest.raises(DecodeError) as raised:
        reader(b"\x07" + null, 1)
    assert (raised.value.reason, raised.value.offset) == (reason, 1)
    got, end = reader(b"\x07" + value + b"\x09", 1)
    assert (got, end) == ("a" if "string" in read else b"a", 1 + len(value))


@pytest.mark.parametrize(("n", "compact", "size"), [
    (None, True, 1), (0, True, 1), (126, True, 1), (127, True, 2),  # compact: uvarint of n + 1
    (None, False, 4), (127, False, 4),
])
def test_count_size_is_the_length_of_the_written_count(n, compact, size) -> None:
    out = bytearray()
    primitives.write_count(out, n, compact)
    assert len(out) == size
    assert primitives.count_size(n, compact) == size


@pytest.mark.parametrize(("compact", "size"), [(True, 1), (False, 4)])
def test_null_records_size(compact: bool, size: int) -> None:
    # null records: compact length 0 (one byte), classic int32 -1 (four bytes)
    assert primitives.records_size(None, compact) == size


def test_uvarint_of_zero_is_one_zero_byte() -> None:
    assert uvarint(0) == b"\x00"


def test_unknown_tagged_fields_are_written_in_tag_order_and_read_back() -> None:
    out = bytearray()
    primitives.write_tagged(out, [(1, b"\xaa")], [(0, b"\xbb\xcc"), (5, b"")])
    # count 3, then (tag, size, payload) by ascending tag: KIP-482's tagged-field section
    assert bytes(out) == b"\x03" + b"\x00\x02\xbb\xcc" + b"\x01\x01\xaa" + b"\x05\x00"
    assert primitives.read_unknown_tagged_fields(b"\xee" + bytes(out), 1) == (
        ((0, b"\xbb\xcc"), (1, b"\xaa"), (5, b"")), 1 + len(out))


def test_fixed_arrays_of_different_shapes_in_turn() -> None:
    data = struct.pack(">3i2q", -1, 2, -3, 2**40, -(2**40))
    assert primitives.read_fixed_array(data, 0, 3, "i", 4) == ([-1, 2, -3], 12)
    assert primitives.read_fixed_array(data, 12, 2, "q", 8) == ([2**40, -(2**40)], 28)
    assert primitives.read_fixed_array(data, 0, 2, "h", 2) == ([-1, -1], 4)


def test_read_starts_at_position_zero() -> None:
    wire = b"\x00\x05PLAIN"
    assert SaslHandshakeRequest.read(wire, 0, 1) == (SaslHandshakeRequest(mechanism="PLAIN"), len(wire))


@pytest.mark.parametrize("name", ["SyncGroupRequest", "ProduceRequest", "FetchResponse", "ApiVersionsRequest"])
def test_is_flexible_follows_kafkas_flexible_versions(name: str) -> None:
    import kwire.generated as generated

    path = next(KAFKA_DEFINITIONS.glob(f"kafka-4.2.1/**/{name}.json"))
    text = "\n".join(line for line in path.read_text().splitlines() if not line.strip().startswith("//"))
    definition = json.loads(text)
    first = int(definition["flexibleVersions"].rstrip("+"))
    cls = getattr(generated, name)
    low, _, high = definition["validVersions"].partition("-")
    for version in range(int(low), int(high or low) + 1):
        assert is_flexible(cls, version) == (version >= first), version


def test_a_dropped_field_names_the_version_or_versions() -> None:
    with pytest.raises(UnsupportedVersionError) as raised:
        SyncGroupRequest(group_instance_id="x").encode(0)
    assert "version 0 has no such field" in str(raised.value)  # the version asked for
    with pytest.raises(UnsupportedVersionError) as raised:
        CreateDelegationTokenRequest(owner_principal_type="User").encode(2)
    assert "version 2 has no such field" in str(raised.value)


# --- arrays read and written through the runtime (code off the hot path) -------------------------

def _read_pair(buf: bytes, pos: int) -> tuple[tuple[int, int], int]:
    if pos + 2 > len(buf):
        raise DecodeError("input ends in the middle of a field", path="second", offset=pos)
    return (buf[pos], buf[pos + 1]), pos + 2


def test_read_array_reads_each_element_and_refuses_null() -> None:
    assert primitives.read_array(b"\x03\x01\x02\x03\x04", 0, True, _read_pair) == ([(1, 2), (3, 4)], 5)
    assert primitives.read_array(b"\x00\x00\x00\x00", 0, False, _read_pair) == ([], 4)
    keyed, _ = primitives.read_array(b"\x01", 0, True, _read_pair, KeyedList)
    assert type(keyed) is KeyedList
    with pytest.raises(DecodeError, match="non-nullable array was null") as refused:
        primitives.read_array(b"\xff\xff\xff\xff", 0, False, _read_pair)
    assert refused.value.offset == 4
    assert primitives.read_nullable_array(b"\x00", 0, True, _read_pair) == (None, 1)
    # struct readers take the version, which the struct array functions pass on
    def read_versioned(buf: bytes, pos: int, version: int) -> tuple[tuple[int, int], int]:
        return (version, buf[pos]), pos + 1
    assert primitives.read_struct_array(b"\x02\x09", 0, True, read_versioned, 4) == ([(4, 9)], 2)
    assert primitives.read_nullable_struct_array(b"\xff\xff\xff\xff", 0, False, read_versioned, 4) == (None, 4)


def test_read_array_names_the_element_that_fails() -> None:
    with pytest.raises(DecodeError) as failed:
        primitives.read_array(b"\x04\x01\x02\x03\x04\x05", 0, True, _read_pair)
    assert (failed.value.path, failed.value.offset) == ("[2].second", 5)
    # a runtime reader that raises IndexError is named too (read_array catches it)
    with pytest.raises(DecodeError, match="input ends") as short:
        primitives.read_array(b"\x02\x00", 0, True, lambda buf, pos: (buf[pos + 1], pos + 1))
    assert short.value.path == "[0]"


def test_write_struct_array_writes_null_or_each_element_and_names_the_failing_one() -> None:
    def write_one(value: int, out: bytearray, version: int) -> None:
        assert version == 3
        if value < 0:
            raise EncodeError("negative", path="count")
        out.append(value)

    out = bytearray()
    primitives.write_struct_array(out, [7, 8], True, write_one, 3)
    primitives.write_struct_array(out, None, False, write_one, 3)
    assert bytes(out) == b"\x03\x07\x08\xff\xff\xff\xff"
    with pytest.raises(EncodeError) as failed:
        primitives.write_struct_array(bytearray(), [1, 2, -3], True, write_one, 3)
    assert failed.value.path == "[2].count"


def test_generated_code_off_the_hot_path_names_elements_in_errors() -> None:
    from kwire.generated.create_topics_request import CreatableTopic, CreatableTopicConfig, CreateTopicsRequest
    request = CreateTopicsRequest(topics=[CreatableTopic(name="a"), CreatableTopic(
        name="b", configs=[CreatableTopicConfig(name="retention.ms", value="1")])])
    wire = request.encode(7)
    assert CreateTopicsRequest.decode(wire, 7) == request
    with pytest.raises(DecodeError) as truncated:
        CreateTopicsRequest.decode(wire[:-8], 7)
    assert truncated.value.path.startswith("topics[1].configs[0].")
    request.topics[1].configs[0].name = None  # type: ignore[assignment]
    with pytest.raises(EncodeError, match="field name is null") as refused:
        request.encode(7)
    assert refused.value.path == "topics[1].configs[0].name"


# A nullable compact array of int32 as Kafka writes one (its protocol guide: a COMPACT_ARRAY is an
# unsigned varint of N + 1, 0 for null, then N elements; int32 big-endian), built here with struct.
@pytest.mark.parametrize("values", [None, [], [7], [-1, 2**31 - 1, -(2**31)], list(range(31)), list(range(32)),
                                    list(range(200))])
def test_nullable_fixed_arrays_read_and_write_kafkas_compact_array(values: list[int] | None) -> None:
    wire = b"\x00" if values is None else uvarint(len(values) + 1) + struct.pack(f">{len(values)}i", *values)
    assert primitives.read_nullable_fixed_array(b"\xee" + wire + b"\xee", 1, "i", 4) == (values, 1 + len(wire))
    out = bytearray(b"\xee")
    primitives.write_nullable_fixed_array(out, values, "i")
    assert bytes(out) == b"\xee" + wire


@pytest.mark.parametrize("count", [3, 31, 32])  # the short path's bound (SMALL_ARRAY), and past it
def test_a_nullable_fixed_array_past_the_buffer_is_refused_at_its_elements(count: int) -> None:
    wire = uvarint(count + 1) + struct.pack(f">{count - 1}i", *range(count - 1))  # one element short
    with pytest.raises(DecodeError, match=f"array of {count} elements runs past the end") as caught:
        primitives.read_nullable_fixed_array(wire, 0, "i", 4)
    assert caught.value.offset == 1  # where the elements start, after the one-byte count

# The second sample (tests/README.md, the run of 2026-11-27): the wire part's survivors.


def test_read_uint16_agrees_with_struct_at_its_edges() -> None:
    """Kills ``kwire.wire.struct_base.x_read_uint16__mutmut_2`` (its first byte dropped); only the
    compiled builds' tests reached it before."""
    for data in (b"\x00\x00", b"\x7f\xff", b"\x80\x00", b"\xff\xff", ODD_BYTES):
        for pos in range(len(data) - 1):
            assert struct_base.read_uint16(data, pos) == struct.unpack_from(">H", data, pos)[0]


def test_non_nullable_bytes_refuse_null_where_its_length_starts() -> None:
    """Kafka's bytes: an int32 length, -1 null; compact bytes: the unsigned varint length + 1, 0 null.
    Both readers say the same thing at the offset of the length. Kills
    ``x_read_bytes_nn__mutmut_10`` (no offset) and ``x_read_compact_bytes_nn__mutmut_12`` (the text)."""
    for read, data in ((primitives.read_bytes_nn, b"\x07\xff\xff\xff\xff"),
                       (primitives.read_compact_bytes_nn, b"\x07\x00")):
        with pytest.raises(DecodeError) as raised:
            read(data, 1)
        assert (raised.value.reason, raised.value.offset) == ("non-nullable bytes were null", 1)
    assert primitives.read_bytes_nn(b"\x00\x00\x00\x00", 0) == (b"", 4)
    assert primitives.read_compact_bytes_nn(b"\x01", 0) == (b"", 1)


def test_a_string_longer_than_the_bytes_left_says_it_is_a_string() -> None:
    """Kills ``x_read_string__mutmut_24`` (the error names ``None``, not the string)."""
    assert primitives.read_string(b"\x00\x03abc", 0) == ("abc", 5)
    with pytest.raises(DecodeError) as raised:
        primitives.read_string(b"\x00\x04abc", 0)  # a length of 4, 3 bytes left: one past the end
    assert (raised.value.reason, raised.value.offset) == (
        "string of length 4 runs past the end of the buffer (3 bytes left)", 2)


def test_tag_count_at_and_just_past_what_the_bytes_left_can_hold() -> None:
    """Each tagged field takes two bytes at least (an unsigned varint tag and size). Kills
    ``kwire.wire.struct_base.x_read_tag_count__mutmut_13`` (the refusal without its offset)."""
    assert struct_base.read_tag_count(b"\x07\x02\x00\x00\x00\x00", 1) == (2, 2)  # 2 fields, 4 bytes left
    with pytest.raises(DecodeError) as raised:
        struct_base.read_tag_count(b"\x07\x02\x00\x00\x00", 1)  # 2 fields, 3 bytes left
    assert (raised.value.reason, raised.value.offset) == ("2 tagged fields cannot fit in the 3 bytes left", 1)


def test_bind_versions_keeps_the_versions_a_struct_does_not_have() -> None:
    """A version table has None where a struct does not exist (AddPartitionsToTxnRequest.json's
    ``Transactions`` are ``4+``); each function gets its own version. Kills
    ``x_bind_versions__mutmut_2`` (None bound as a function); the generated tables are built at
    import, before mutmut picks a mutant, so only a direct call reaches it."""
    def read(buf: bytes, *, version: int) -> tuple[bytes, int]:
        return buf, version

    table = primitives.bind_versions((None, read, None, read))
    assert (table[0], table[2]) == (None, None)
    assert (table[1](b"x"), table[3](b"y")) == ((b"x", 1), (b"y", 3))
