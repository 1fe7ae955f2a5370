"""The column decoder (kwire.records.column_decoder), as plain Python and as its mypyc build.

Held to readers kwire did not write: kafka-python's and aiokafka's (C and pure) on batches real
clients and brokers wrote (the captures with every codec, both KRaft metadata logs, the kafka-go
FetchResponses) and on batches kafka-python's builder writes from hypothesis-drawn records. On
malformed input both builds must fail alike (same error class, message and byte offset), exactly
where kwire's object reader fails, and leave the builder as it was; hand-made cases pin the
offsets. Rows are read back through Arrow (``pa.Array.from_buffers`` over the buffers, validated
in full), the way the data source reads them.
"""
from __future__ import annotations

import shutil
import struct
import subprocess
import sys

import pytest
from crc32c import crc32c

from kwire.records import BatchReader, Codec, RecordBatch, column_decoder, columns, decode_batch
from kwire.records.record_codec import encode_record, read_records
from kwire.wire.errors import CorruptRecordError, DecodeError
from kwire.wire.varint import zigzag as zz
from tests.optional import later
from tests.packages import (
    HealthCheck,
    KpBatch,
    KpBuilder,
    KpMemoryRecords,
    aiokafka_c,
    aiokafka_py,
    given,
    settings,
    st,
)
from tests.paths import CAPTURES, KAFKA_GO, KRAFT_361, KRAFT_390, REPO
from tests.records.test_legacy import parse_fetch_response

record_arrays = later("kwire.arrow.record_arrays", "record_arrays")  # kwire.arrow is made of pyarrow
assume = later("hypothesis", "assume")

INT64_MAX = 2**63 - 1


@pytest.fixture(params=["python", "mypyc", "c"])
def decoder(request):
    """The decoder module: the source as plain Python, its mypyc build, or the C flavour."""
    if request.param == "python":
        return column_decoder
    if request.param == "c":
        return request.getfixturevalue("c_record_decoder")
    return request.getfixturevalue("compiled_record_decoder")


def rows(built) -> list[tuple]:
    """(offset, timestamp, key, value, headers) per row of a finished RecordColumns, via Arrow."""
    arrays = record_arrays(built)
    for array in arrays.values():
        array.validate(full=True)
    headers = [None if row is None else [(h["key"], h["value"]) for h in row] for row in arrays["headers"].to_pylist()]
    columns = [arrays[name].to_pylist() for name in ("offset", "timestamp", "key", "value")]
    return list(zip(*columns, headers, strict=True))


def object_rows(records) -> list[tuple]:
    return [(r.offset, r.timestamp, r.key, r.value, [tuple(h) for h in r.headers]) for r in records]


def decode_all(decoder, buf, *, verify_crc=True) -> list[tuple]:
    """Every batch in ``buf`` through ``decoder``: magic 2 batches by columns, legacy ones by record."""
    builder = decoder.ColumnBuilder()
    for batch in BatchReader(buf, verify_crc=verify_crc):
        if isinstance(batch, RecordBatch):
            batch.add_columns_to(builder)
        else:
            for r in batch.records:
                builder.add_record(r.offset, r.timestamp, r.key, r.value, r.headers)
    return rows(builder.finish())


def buffers(built) -> dict:
    return {name: getattr(built, name) for name in vars(column_decoder.ColumnBuilder().finish())}


# ------------------------------------------------------------------------- real batches


CAPTURED = sorted(CAPTURES.glob("*/batches/*.batch"))


@pytest.mark.parametrize("path", CAPTURED, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_captured_batches_decode_as_kafka_python_and_aiokafka_read_them(decoder, path):
    wire = path.read_bytes()
    ours = decode_all(decoder, wire)
    assert ours == object_rows(KpBatch(wire))
    assert ours == object_rows(aiokafka_c.DefaultRecordBatch(wire))
    assert ours == object_rows(aiokafka_py._DefaultRecordBatchPy(wire))


def test_the_captures_cover_every_codec():
    assert {decode_batch(p.read_bytes()).compression for p in CAPTURED} == set(Codec)


@pytest.mark.parametrize("path", [
    KRAFT_361 / "__cluster_metadata-0" / "00000000000000000000.log",
    KRAFT_361 / "__cluster_metadata-0" / "00000000000000007111-0000000001.checkpoint",
    KRAFT_361 / "bootstrap.checkpoint",
    KRAFT_390 / "__cluster_metadata-0" / "00000000000000000000.log",
    KRAFT_390 / "bootstrap.checkpoint",
], ids=lambda p: f"{p.parents[1].name if p.parent.name.startswith('__') else p.parent.name}/{p.name}")
def test_kraft_logs_decode_as_kafka_python_reads_them(decoder, path):
    data = path.read_bytes()
    ours = decode_all(decoder, data)
    theirs = [r for batch in _kp_batches(data) for r in object_rows(batch)]
    assert ours == theirs
    assert len(ours) > 0


def _kp_batches(data: bytes):
    records = KpMemoryRecords(data)
    while records.has_next():
        yield records.next_batch()


@pytest.mark.parametrize("path", sorted(KAFKA_GO.glob("*.hex")), ids=lambda p: p.stem)
def test_kafka_go_fetch_responses_decode_as_kafka_python_reads_them(decoder, path):
    frame = bytes.fromhex(path.read_text().strip())
    _, [(_, _, _, start, end)] = parse_fetch_response(frame)
    ours = decode_all(decoder, frame[start:end])
    theirs = [r for batch in _kp_batches(frame[start:end]) for r in object_rows(batch)]
    assert ours == theirs


def test_every_build_writes_the_same_bytes(compiled_record_decoder, c_record_decoder):
    for path in CAPTURED:
        wire = path.read_bytes()
        built = []
        for decoder in (column_decoder, compiled_record_decoder, c_record_decoder):
            builder = decoder.ColumnBuilder()
            decode_batch(wire).add_columns_to(builder)
            builder.add_null_row()
            built.append(buffers(builder.finish()))
        assert built[0] == built[1] == built[2], path.name


# ------------------------------------------------------------------- generated batches

header_strategy = st.tuples(st.text(max_size=6), st.one_of(st.none(), st.binary(max_size=8)))
record_strategy = st.tuples(
    st.integers(-(2**40), 2**40),                 # timestamp delta from the first record
    st.one_of(st.none(), st.binary(max_size=40)),  # key
    st.one_of(st.none(), st.binary(max_size=300)),  # value
    st.lists(header_strategy, max_size=3),
)


def kp_batch(records, codec: int, base_offset: int, first_timestamp: int, log_append_time: int | None) -> bytes:
    builder = KpBuilder(2, codec, False, -1, -1, -1, 10**9)
    for i, (delta, key, value, headers) in enumerate(records):
        builder.append(i * 3, first_timestamp + delta, key, value, headers)  # offset gaps, as after compaction
    wire = bytearray(builder.build())
    wire[0:8] = struct.pack(">q", base_offset)
    if log_append_time is not None:  # the broker's rewrite: the flag and maxTimestamp, then the CRC
        (attributes,) = struct.unpack_from(">h", wire, 21)
        struct.pack_into(">hiqq", wire, 21, attributes | 0x08, *struct.unpack_from(">iq", wire, 23), log_append_time)
        struct.pack_into(">I", wire, 17, crc32c(bytes(wire[21:])))
    return bytes(wire)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    records=st.lists(record_strategy, min_size=1, max_size=12),
    codec=st.sampled_from([0, 1, 2, 3, 4]),
    base_offset=st.integers(0, 2**62),
    first_timestamp=st.integers(0, 2**41),
    log_append_time=st.one_of(st.none(), st.integers(0, 2**41)),
)
def test_generated_batches_decode_as_kafka_python_reads_them(decoder, records, codec, base_offset, first_timestamp,
                                                             log_append_time):
    wire = kp_batch(records, codec, base_offset, first_timestamp, log_append_time)
    assert decode_all(decoder, wire) == object_rows(KpBatch(wire)) == object_rows(decode_batch(wire).records)


# --------------------------------------------------------------------- malformed input


def outcome(decoder, data: bytes, count: int, base_offset=0, base_timestamp=0, log_append_time=False):
    """Rows, or (error class, message, offset); the builder must be as it was after an error."""
    builder = decoder.ColumnBuilder()
    first = b"\x02" + encode_record(0, 0, b"k", b"before", [("h", b"")])  # a row already there, not at 0
    builder.add_records(first, 1, len(first), 1, 7, 0, 0, False, 0)
    before = buffers(builder.finish())
    try:
        builder.add_records(data, 0, len(data), count, base_offset, base_timestamp, 99, log_append_time, 0)
    except DecodeError as err:
        assert buffers(builder.finish()) == before, "a failed batch left rows behind"
        return type(err), str(err), err.offset
    return rows(builder.finish())[1:]


def object_outcome(data: bytes, count: int, base_offset=0, base_timestamp=0):
    try:
        return object_rows(read_records(data, 0, len(data), count, base_offset, base_timestamp))
    except DecodeError as err:
        return type(err), str(err), err.offset


def records_area(records) -> bytes:
    return b"".join(encode_record(i, delta, key, value, headers)
                    for i, (delta, key, value, headers) in enumerate(records))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    records=st.lists(record_strategy, min_size=1, max_size=4),
    edits=st.lists(st.tuples(st.sampled_from(["cut", "flip", "insert", "delete"]), st.integers(0, 2000),
                             st.integers(0, 255)), min_size=1, max_size=3),
    count_change=st.sampled_from([0, 0, 0, -1, 1, 5, 10**9]),
)
def test_damaged_records_fail_alike_in_both_builds_and_where_the_object_reader_fails(
        decoder, records, edits, count_change):
    data = bytearray(records_area([(d % 1000, k, v, h) for d, k, v, h in records]))
    for kind, where, byte in edits:
        where %= len(data) + 1
        if kind == "cut":
            del data[where:]
        elif kind == "flip" and where < len(data):
            data[where] ^= byte or 1
        elif kind == "insert":
            data[where:where] = bytes([byte])
        elif kind == "delete":
            del data[where:where + 1]
    data = bytes(data)
    count = max(0, len(records) + count_change)
    pure = outcome(column_decoder, data, count)
    if decoder is not column_decoder:
        assert outcome(decoder, data, count) == pure
    theirs = object_outcome(data, count)
    if isinstance(pure, list):
        assert pure == theirs
    else:
        # the object reader builds no arrays, so an int64 overflow of timestamp delta + base is ours alone
        assert isinstance(theirs, tuple) or "out of int64 range" in pure[1]


def record(*fields: bytes) -> bytes:
    """A record from its fields after the length (attributes first), length prefix added."""
    body = b"".join(fields)
    return zz(len(body)) + body


GOOD = record(b"\x00", zz(0), zz(0), zz(1), b"k", zz(1), b"v", zz(0))  # 9 bytes
BIG = record(b"\x00", zz(0), zz(0), zz(1), b"k", zz(6), b"vvvvvv", zz(0))  # 14 bytes: room for 2 minimal ones
NO_KEY = (b"\x00", zz(0), zz(0), zz(-1))


@pytest.mark.parametrize("data, count, error, offset, message", [
    # a varint that runs to the end of its record: the timestamp delta at byte 2
    (record(b"\x00", b"\x80" * 6), 1, DecodeError, 2, "varint runs past the end"),
    (record(b"\x00", zz(0), b"\xff\xff\xff\xff\xff\x01", zz(-1), zz(-1), zz(0)), 1, DecodeError, 3, "longer than 5"),
    (record(b"\x00", zz(0), b"\xff\xff\xff\xff\x1f", zz(-1), zz(-1), zz(0)), 1, DecodeError, 3, "out of int32 range"),
    (record(b"\x00", b"\xff" * 9 + b"\x03", zz(0), zz(-1), zz(-1), zz(0)), 1, DecodeError, 2, "out of int64 range"),
    # lengths past the end: of the record (the key at byte 5), of the data (the record)
    (record(b"\x00", zz(0), zz(0), zz(50), b"k", zz(-1), zz(0)), 1, DecodeError, 5, "key length 50 exceeds the 3"),
    (zz(100) + GOOD, 1, DecodeError, 0, "record length 100 does not fit"),
    (zz(3) + b"\x00" * 6, 1, DecodeError, 0, "record length 3 does not fit"),
    # record counts that do not match the data
    (GOOD + GOOD, 1, CorruptRecordError, 9, "9 bytes left over after the batch's 1 records"),
    (BIG * 2, 4, DecodeError, 28, "record is truncated"),
    (GOOD, 10**9, CorruptRecordError, 0, "1000000000 records cannot fit in 9 bytes"),
    # negative lengths other than -1
    (record(b"\x00", zz(0), zz(0), zz(-2), zz(-1), zz(0)), 1, DecodeError, 5, "key length -2 is negative"),
    (record(*NO_KEY, zz(-7), zz(0)), 1, DecodeError, 6, "value length -7 is negative"),
    (record(*NO_KEY, zz(-1), zz(1), zz(-1), zz(-1)), 1, DecodeError, 8, "header key length -1 is negative"),
    (record(*NO_KEY, zz(-1), zz(1), zz(1), b"h", zz(-3)), 1, DecodeError, 10, "header value length -3 is negative"),
    # a hostile header count is refused before anything is read for it
    (record(*NO_KEY, zz(-1), zz(10**9)), 1, DecodeError, 6, "header count 1000000000 does not fit"),
    (record(*NO_KEY, zz(-1), zz(1), zz(1), b"h", zz(-1), b"\x00"), 1, DecodeError, 10, "headers do not end"),
    # header keys must be UTF-8 (Arrow strings): a stray byte, an overlong form, a surrogate
    (record(*NO_KEY, zz(-1), zz(1), zz(2), b"a\xff", zz(-1)), 1, DecodeError, 8, "invalid byte 0xff at its byte 1"),
    (record(*NO_KEY, zz(-1), zz(1), zz(2), b"\xc0\x80", zz(-1)), 1, DecodeError, 8, "not UTF-8"),
    (record(*NO_KEY, zz(-1), zz(1), zz(3), b"\xed\xa0\x80", zz(-1)), 1, DecodeError, 8, "not UTF-8"),
    # fields that end before the record does
    # (both counts include the length's own byte, as in the object reader's message)
    (record(*NO_KEY, zz(-1), zz(0), b"\x00"), 1, DecodeError, 0, "record fields take 7 bytes, its length says 8"),
])
def test_malformed_records_raise_with_the_byte_offset(decoder, data, count, error, offset, message):
    found = outcome(decoder, data, count)
    assert isinstance(found, tuple), found
    assert found[0] is error and found[2] == offset and message in found[1], found
    if count < 10**9:
        assert isinstance(object_outcome(data, count), tuple)  # kwire's object reader refuses it too


def test_offsets_and_timestamps_outside_int64_are_errors(decoder):
    assert outcome(decoder, GOOD, 1, base_offset=INT64_MAX)[0] is not DecodeError  # delta 0: fine
    found = outcome(decoder, record(b"\x00", zz(0), zz(1), zz(-1), zz(-1), zz(0)), 1, base_offset=INT64_MAX)
    assert found[0] is DecodeError and "offset 9223372036854775807 + 1 is out of int64 range" in found[1]
    late = record(b"\x00", zz(5), zz(0), zz(-1), zz(-1), zz(0))
    assert "timestamp" in outcome(decoder, late, 1, base_timestamp=INT64_MAX - 4)[1]
    # log-append time replaces the sum, so it cannot overflow
    assert outcome(decoder, late, 1, base_timestamp=INT64_MAX - 4, log_append_time=True) == [(0, 99, None, None, [])]


def test_a_damaged_batch_names_its_position_in_the_buffer(decoder):
    good = kp_batch([(0, b"k", b"v", [])], 0, 0, 1_700_000_000_000, None)
    bad = bytearray(kp_batch([(0, b"k", b"v" * 20, [])], 0, 5, 1_700_000_000_000, None))
    assert bad[-22] == 0x28  # the value's length, zigzag 20 (then 20 bytes and the header count)
    bad[-22] = 0x7E  # zigzag 63: past the end of its record
    buf = good + bytes(bad)
    builder = decoder.ColumnBuilder()
    batches = list(BatchReader(buf, verify_crc=False))
    batches[0].add_columns_to(builder)
    with pytest.raises(DecodeError) as caught:
        batches[1].add_columns_to(builder)
    with pytest.raises(DecodeError) as by_objects:
        _ = batches[1].records
    assert caught.value.offset == by_objects.value.offset and caught.value.offset > len(good)
    assert rows(builder.finish()) == object_rows(batches[0].records)


# ----------------------------------------------------------------------------- rows by hand


def test_single_and_null_rows(decoder):
    builder = decoder.ColumnBuilder()
    builder.add_record(5, 1000, None, b"v", [("ü", None), ("k", b"")])
    builder.add_null_row()
    builder.add_record(6, 1001, b"", None, [])
    built = builder.finish()
    assert rows(built) == [(5, 1000, None, b"v", [("ü", None), ("k", b"")]), (None, None, None, None, None),
                           (6, 1001, b"", None, [])]
    counts = (built.rows, built.null_rows, built.key_nulls, built.value_nulls, built.header_value_nulls)
    assert counts == (3, 1, 2, 2, 1)


def test_an_empty_builder_gives_empty_arrays(decoder):
    assert rows(decoder.ColumnBuilder().finish()) == []
    assert decode_all(decoder, b"") == []


@given(st.binary(max_size=12))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_header_keys_are_checked_as_python_checks_utf8(decoder, key):
    data = record(*NO_KEY, zz(-1), zz(1), zz(len(key)), key, zz(-1))
    try:
        text = key.decode("utf-8")
    except UnicodeDecodeError:
        assert "not UTF-8" in outcome(decoder, data, 1)[1]
    else:
        assert outcome(decoder, data, 1) == [(0, 0, None, None, [(text, None)])]


# ------------------------------------------------------------------- which build is used


def test_the_fastest_build_is_the_one_in_use(c_record_decoder, compiled_record_decoder):
    assert columns.IMPLEMENTATION is c_record_decoder and columns.IMPLEMENTATION_NAME == "c"
    assert columns.FALLBACK_REASON is None
    assert c_record_decoder.__file__.endswith(".so") and compiled_record_decoder.__file__.endswith(".so")
    assert c_record_decoder.BUILT_FROM == columns.c_source_digest()
    assert compiled_record_decoder.BUILT_FROM == columns.source_digest()


def test_the_flavours_fall_back_in_order(c_record_decoder, compiled_record_decoder, monkeypatch):
    assert columns.choose() == ("c", c_record_decoder, None)
    monkeypatch.setattr(columns, "C_MODULE", "kwire.records._no_such_c_build")
    assert columns.choose() == ("mypyc", compiled_record_decoder, "c: not built (run: kwire build-native)")
    monkeypatch.setattr(columns, "COMPILED_MODULE", "kwire.records._no_such_mypyc_build")
    # both passed over for one reason: said once
    assert columns.choose() == ("python", column_decoder, "not built (run: kwire build-native)")
    monkeypatch.setattr(columns, "C_SOURCE", columns.C_SOURCE.with_name("no_such_source.c"))
    assert columns.choose() == ("python", column_decoder, ("c: its source no_such_source.c is not installed; "
                                                          "mypyc: not built (run: kwire build-native)"))
    monkeypatch.undo()
    monkeypatch.setenv(columns.CHOICE_VARIABLE, "mypyc")
    assert columns.choose() == ("mypyc", compiled_record_decoder, "KWIRE_RECORD_DECODER=mypyc")
    monkeypatch.setenv(columns.CHOICE_VARIABLE, "python")
    assert columns.choose() == ("python", column_decoder, "KWIRE_RECORD_DECODER=python")


def test_without_a_compiler_plain_python_decodes_and_doctor_says_so(tmp_path):
    """A kwire with neither build beside its source (a copy of the package), as an install from
    source without a C compiler has: records decode, and doctor names the flavour and why."""
    shutil.copytree(REPO / "kwire", tmp_path / "kwire", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    script = ("import json, sys; from kwire.records import columns; from kwire.cli.main import main; "
              "b = columns.ColumnBuilder(); b.add_records(bytes.fromhex(sys.argv[1]), 0, 9, 1, 5, 7, 0, False, 0); "
              "print(columns.IMPLEMENTATION_NAME, b.finish().value_data); main(['doctor'])")
    proc = subprocess.run([sys.executable, "-c", script, GOOD.hex()], cwd=tmp_path, capture_output=True, text=True,
                          check=False,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path)})
    lines = proc.stdout.splitlines()
    assert lines[0] == "python b'v'", proc.stderr
    # neither flavour built: the reason they share, said once
    assert lines[1] == "record decoder: plain Python, not built (run: kwire build-native)"


def _change_since_the_build(monkeypatch, tmp_path, source: str, comment: bytes) -> None:
    """Point ``columns.<source>`` at a copy of that file with ``comment`` added, as if edited after the build."""
    changed = tmp_path / getattr(columns, source).name
    changed.write_bytes(getattr(columns, source).read_bytes() + comment)
    monkeypatch.setattr(columns, source, changed)


def test_a_stale_c_build_is_not_used(c_record_decoder, monkeypatch, tmp_path):
    _change_since_the_build(monkeypatch, tmp_path, "C_SOURCE", b"\n/* changed */\n")
    module, why_not = columns.load_c()
    assert module is None and why_not == ("the build is stale: column_decoder_c.c changed since "
                                          "(run: kwire build-native)")


def test_a_stale_or_missing_build_is_not_used(compiled_record_decoder, monkeypatch, tmp_path):
    _change_since_the_build(monkeypatch, tmp_path, "SOURCE", b"\n# changed\n")
    module, why_not = columns.load_compiled()
    assert module is None and "stale" in why_not
    monkeypatch.setattr(columns, "COMPILED_MODULE", "kwire.records._no_such_build")
    assert columns.load_compiled() == (None, "not built (run: kwire build-native)")


def test_the_build_switches_only_the_compiled_flag_and_pastes_the_varint_module():
    from kwire.generator.native.inline import paste_varint, varint_definitions
    from kwire.generator.native.records import compiled_source, paste_record_loop

    source = columns.SOURCE.read_bytes()
    text = compiled_source(source)
    assert text.count("\nCOMPILED = True\n") == 1 and "\nCOMPILED = False\n" not in text
    assert "from kwire.wire.varint import" not in text and varint_definitions() in text
    assert text.replace("\nCOMPILED = True\n", "\nCOMPILED = False\n").startswith(
        paste_varint(paste_record_loop(source.decode())))
    assert "kwire.records._generated_columns import" not in text and "\ni64 = int" not in text
    assert "\n    def _add_records(self, " in text and "\ndef utf8_error(" in text
    assert text.rstrip().endswith(f'BUILT_FROM = "{columns.source_digest()}"')


def test_a_change_to_the_varint_module_makes_the_build_stale(compiled_record_decoder, monkeypatch, tmp_path):
    _change_since_the_build(monkeypatch, tmp_path, "VARINT_SOURCE", b"\n# changed\n")
    module, why_not = columns.load_compiled()
    assert module is None and "stale" in why_not


def test_without_a_c_compiler_the_c_flavour_is_not_built(monkeypatch, tmp_path):
    from kwire.generator.native.build import CompileUnavailable
    from kwire.generator.native.records import build_c

    monkeypatch.setenv("CC", "/no/such/cc")
    with pytest.raises(CompileUnavailable, match="no C compiler found"):
        build_c(tmp_path / "cache", install_dir=tmp_path, log=lambda _message: None)
    assert list(tmp_path.rglob("*.so")) == []


def _copied(built) -> dict:
    """The finished columns' values as they are now (bytes copies of the buffers)."""
    return {name: bytes(value) if isinstance(value, (bytes, bytearray, memoryview)) else value
            for name, value in buffers(built).items()}


def test_a_builder_written_after_finish_leaves_the_columns_it_gave_as_they_were(decoder):
    # The C flavour's finish() hands its buffers over uncopied (kwire.records.column_handover);
    # a write after it copies them first: in add_records (C), add_record and add_null_row alike.
    # The other flavours copy in finish(). Either way the columns a finish() gave never change.
    builder = decoder.ColumnBuilder()
    first = b"\x02" + encode_record(0, 0, b"k", b"before", [("h", b"")])
    builder.add_records(first, 1, len(first), 1, 7, 0, 0, False, 0)
    writes = (lambda: builder.add_records(first, 1, len(first), 1, 8, 0, 0, False, 0),
              lambda: builder.add_record(9, 5, b"x", None, [("k", b"v")]),
              builder.add_null_row)
    for write in writes:
        finished = builder.finish()
        before_rows, before = rows(finished), _copied(finished)
        write()
        assert rows(finished) == before_rows and _copied(finished) == before
    assert [row[:4] for row in rows(builder.finish())] == [
        (7, 0, b"k", b"before"), (8, 0, b"k", b"before"), (9, 5, b"x", None), (None, None, None, None)]


def test_the_c_flavours_finish_copies_no_buffer(c_record_decoder):
    builder = c_record_decoder.ColumnBuilder()
    first = b"\x02" + encode_record(0, 0, b"k", b"value", [])
    builder.add_records(first, 1, len(first), 1, 7, 0, 0, False, 0)
    finished = builder.finish()
    assert finished.key_data.obj is builder.key_data and finished.value_data.obj is builder.value_data
    assert finished.offsets.obj is builder.offsets and finished.key_data.readonly
    assert bytes(finished.value_data) == b"value" and finished.offsets == (7).to_bytes(8, "little")
