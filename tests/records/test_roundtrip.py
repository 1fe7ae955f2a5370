"""Property tests: what the builder writes decodes to the same records, in kwire and in
kafka-python, and decoded records re-encode to the same bytes."""
from __future__ import annotations

import pytest

from kwire.records import Codec, RecordBatchBuilder, TimestampType, decode_batch, encode_batch
from kwire.wire.errors import EncodeError
from tests.packages import KpBatch, given, settings, st

keys = st.none() | st.binary(max_size=300)
header_names = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)
headers = st.lists(st.tuples(header_names, st.none() | st.binary(max_size=40)), max_size=4)
timestamps = st.integers(0, 2**62)
rows = st.lists(
    st.tuples(timestamps, keys, keys, headers, st.integers(1, 2**20)),  # last: offset gap
    max_size=40,
)
options = st.fixed_dictionaries(
    {
        "base_offset": st.integers(0, 2**62),
        "codec": st.sampled_from(list(Codec)),
        "partition_leader_epoch": st.integers(-(2**31), 2**31 - 1),
        "producer_id": st.integers(-(2**63), 2**63 - 1),
        "producer_epoch": st.integers(-(2**15), 2**15 - 1),
        "base_sequence": st.integers(-(2**31), 2**31 - 1),
        "is_transactional": st.booleans(),
        "is_control": st.booleans(),
    },
    optional={"delete_horizon_ms": timestamps},
)


def build(rows, options) -> tuple[bytes, list[int]]:
    builder = RecordBatchBuilder(**options)
    deltas = []
    delta = -1
    for timestamp, key, value, record_headers, gap in rows:
        delta += gap
        if delta > 2**31 - 1:
            break
        deltas.append(builder.append(timestamp, key, value, record_headers, offset_delta=delta))
    return builder.build(), deltas


@settings(max_examples=250, deadline=None)
@given(rows, options)
def test_round_trip(rows, options):
    wire, deltas = build(rows, options)
    rows = rows[: len(deltas)]
    batch = decode_batch(wire)
    assert batch.compression == (options["codec"] if rows else Codec.NONE)
    for name in ("base_offset", "partition_leader_epoch", "producer_id", "producer_epoch", "base_sequence",
                 "is_transactional", "is_control"):
        assert getattr(batch, name) == options[name]
    assert batch.delete_horizon_ms == options.get("delete_horizon_ms")
    assert batch.has_delete_horizon == ("delete_horizon_ms" in options)
    assert batch.record_count == len(rows)
    assert batch.last_offset_delta == (deltas[-1] if deltas else 0)
    if rows:
        assert batch.max_timestamp == max(r[0] for r in rows)
        assert batch.base_timestamp == options.get("delete_horizon_ms", rows[0][0])
    else:
        assert batch.max_timestamp == -1
    decoded = [(r.timestamp, r.key, r.value, r.headers, r.offset_delta) for r in batch]
    assert decoded == [(t, k, v, h, d) for (t, k, v, h, _), d in zip(rows, deltas, strict=True)]
    assert [r.offset for r in batch] == [options["base_offset"] + d for d in deltas]
    # decoded records write back to the very same bytes
    assert encode_batch(batch.records, **options) == wire


@settings(max_examples=100, deadline=None)
@given(rows, st.sampled_from(list(Codec)))
def test_kafka_python_reads_what_kwire_writes(rows, codec):
    wire, deltas = build(rows, {"codec": codec, "base_offset": 10})
    rows = rows[: len(deltas)]
    theirs = KpBatch(wire)
    assert theirs.validate_crc()
    assert [(r.offset, r.timestamp, r.key, r.value, r.headers) for r in theirs] == [
        (10 + d, t, k, v, h) for (t, k, v, h, _), d in zip(rows, deltas, strict=True)
    ]


def test_log_append_time_batch():
    builder = RecordBatchBuilder(log_append_time=99)
    builder.append(5, b"k", b"v")
    batch = decode_batch(builder.build())
    assert batch.timestamp_type == TimestampType.LOG_APPEND_TIME
    assert (batch.max_timestamp, batch.base_timestamp) == (99, 5)
    assert [r.timestamp for r in batch] == [99]


@pytest.mark.parametrize(
    "call",
    [
        lambda b: b.append(0, "text", None),
        lambda b: b.append(0, None, 5),
        lambda b: b.append(0, None, None, [("k", "not bytes")]),
        lambda b: b.append(0, None, None, [(b"bytes key", None)]),
        lambda b: b.append(0, None, None, [("\ud800", None)]),
        lambda b: b.append(0, None, None, ["no pair"]),
        lambda b: b.append(2**63, None, None),
        lambda b: b.append(1.5, None, None),
        lambda b: b.append(0, None, None, offset_delta=2**31),
        lambda b: (b.append(0, None, None, offset_delta=3), b.append(0, None, None, offset_delta=3)),
        lambda b: (b.append(-(2**62), None, None), b.append(2**62, None, None)),
    ],
    ids=["str-key", "int-value", "str-header-value", "bytes-header-key", "surrogate-key", "header-shape",
         "timestamp-range", "float-timestamp", "offset-delta-range", "offset-delta-order",
         "timestamp-delta-range"],
)
def test_bad_values_raise_encode_error(call):
    with pytest.raises(EncodeError):
        call(RecordBatchBuilder())


@pytest.mark.parametrize(
    "options",
    [{"producer_epoch": 2**15}, {"base_offset": 2**63}, {"partition_leader_epoch": -(2**31) - 1}, {"codec": 9}],
    ids=["epoch", "base-offset", "leader-epoch", "codec"],
)
def test_bad_header_fields_raise_encode_error(options):
    with pytest.raises(EncodeError):
        builder = RecordBatchBuilder(**options)
        builder.append(0, None, None)
        builder.build()
