"""A batch whose timestamps the broker set (LogAppendTime) keeps that time on its LogBatch.

The batch is written by kafka-python's builder (not kwire), then its attributes get bit 3 set
(Kafka's ``DefaultRecordBatch.TIMESTAMP_TYPE_MASK`` = 0x08, the broker's LogAppendTime) and its
CRC-32C recomputed over the bytes from the attributes on, as Kafka's ``DefaultRecordBatch`` does.
Kafka gives a LogAppendTime batch's time as its ``maxTimestamp`` (bytes 35-42). Kills
``kwire.logs.entries.xǁLogBatchǁdecode__mutmut_33`` (the timestamp type never read)."""
from __future__ import annotations

import struct

from kwire.logs.entries import LogBatch
from kwire.records.reader import iter_batches
from tests.optional import need_module

ATTRIBUTES_AT, CRC_AT, MAX_TIMESTAMP_AT = 21, 17, 35


def kafka_python_batch(*, log_append_time: bool) -> bytes:
    records = need_module("kafka.record.default_records")
    util = need_module("kafka.record.util")
    builder = records.DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=0, producer_id=-1,
                                                producer_epoch=-1, base_sequence=-1, batch_size=1 << 20)
    builder.append(0, timestamp=1_700_000_000_000, key=b"k", value=b"v", headers=[])
    builder.append(1, timestamp=1_700_000_000_500, key=b"k", value=b"v", headers=[])
    data = bytearray(builder.build())
    if log_append_time:
        attributes = struct.unpack_from(">h", data, ATTRIBUTES_AT)[0] | 0x08
        struct.pack_into(">h", data, ATTRIBUTES_AT, attributes)
        struct.pack_into(">I", data, CRC_AT, util.calc_crc32c(bytes(data[ATTRIBUTES_AT:])))
    return bytes(data)


def test_log_append_time_is_the_batch_max_timestamp_and_only_for_such_batches() -> None:
    data = kafka_python_batch(log_append_time=True)
    (batch,) = iter_batches(data)
    (max_timestamp,) = struct.unpack_from(">q", data, MAX_TIMESTAMP_AT)
    assert LogBatch.decode(batch, lambda record: record).log_append_time == max_timestamp == 1_700_000_000_500
    (create_time,) = iter_batches(kafka_python_batch(log_append_time=False))
    assert LogBatch.decode(create_time, lambda record: record).log_append_time is None
