"""Tiered storage's ``__remote_log_metadata`` topic: values framed as KRaft metadata records are,
with record types of their own (apiKeys 0-3 of Kafka's storage module, which the KRaft records
use for other things). The vector is worked out by hand from the definition, field by field."""
from __future__ import annotations

from pathlib import Path

import pytest

from kwire.logs.dump import decoder_for, dump_paths
from kwire.logs.metadata_log import MetadataRecord, decode_metadata_value
from kwire.records import RecordBatchBuilder
from kwire.wire.errors import DecodeError
from kwire.wire.index import load
from tests.generated.vectors import h

TOPIC_ID = "00000000-0000-0000-0000-000000000001"
SEGMENT_ID = "22222222-2222-2222-2222-222222222222"

SEGMENT_COPY_STARTED = h(
    "01 00 00",                                   # frame version 1, apiKey 0, version 0 (unsigned varints)
    "02 74",                                      # RemoteLogSegmentId.TopicIdPartition.Name: compact "t"
    "00000000000000000000000000000001",           # ... .Id (uuid)
    "00000000",                                   # ... .Partition 0
    "00",                                         # ... no tagged fields (TopicIdPartition)
    "22222222222222222222222222222222",           # RemoteLogSegmentId.Id (uuid)
    "00",                                         # no tagged fields (RemoteLogSegmentId)
    "0000000000000000",                           # StartOffset 0
    "0000000000000063",                           # EndOffset 99
    "00000001",                                   # BrokerId 1
    "0000018bcfe56800",                           # MaxTimestampMs 1700000000000
    "0000018bcfe56bE8",                           # EventTimestampMs 1700000001000
    "02", "00000000", "0000000000000000", "00",   # SegmentLeaderEpochs: 1 entry, epoch 0 at offset 0
    "00000400",                                   # SegmentSizeInBytes 1024
    "00",                                         # CustomMetadata: null (compact nullable bytes)
    "00",                                         # RemoteLogSegmentState 0 (COPY_SEGMENT_STARTED)
    "01", "00 01 01",                             # one tagged field: tag 0 (TxnIndexEmpty), 1 byte, true
)


def test_hand_worked_segment_record_decodes_and_encodes_back() -> None:
    decoded = decode_metadata_value(SEGMENT_COPY_STARTED, strict=True, remote_log=True)
    assert isinstance(decoded, MetadataRecord) and decoded.name == "RemoteLogSegmentMetadataRecord"
    record = decoded.message
    assert record.remote_log_segment_id.topic_id_partition.name == "t"
    assert str(record.remote_log_segment_id.topic_id_partition.id) == TOPIC_ID
    assert str(record.remote_log_segment_id.id) == SEGMENT_ID
    assert (record.start_offset, record.end_offset, record.broker_id) == (0, 99, 1)
    assert (record.max_timestamp_ms, record.event_timestamp_ms) == (1_700_000_000_000, 1_700_000_001_000)
    assert [(e.leader_epoch, e.offset) for e in record.segment_leader_epochs] == [(0, 0)]
    assert (record.segment_size_in_bytes, record.custom_metadata, record.remote_log_segment_state) == (1024, None, 0)
    assert record.txn_index_empty is True
    assert decoded.encode_value() == SEGMENT_COPY_STARTED


def test_the_two_apikey_spaces_stay_apart() -> None:
    # apiKey 0 of the KRaft metadata log is RegisterBrokerRecord, which these bytes are not
    assert load().metadata_records[0] == "RegisterBrokerRecord"
    assert load().remote_log_metadata_records[0] == "RemoteLogSegmentMetadataRecord"
    assert "RemoteLogSegmentMetadataRecord" not in load().metadata_records.values()
    with pytest.raises(DecodeError) as raised:
        decode_metadata_value(SEGMENT_COPY_STARTED, strict=True)
    # read as what apiKey 0 is in the metadata log, the bytes fail inside a RegisterBrokerRecord field
    assert raised.value.path.startswith("RegisterBrokerRecord.") and raised.value.offset is not None


def test_dump_decodes_a_remote_log_metadata_partition(tmp_path: Path) -> None:
    builder = RecordBatchBuilder(base_offset=0)
    builder.append(1_700_000_001_000, None, SEGMENT_COPY_STARTED)
    folder = tmp_path / "__remote_log_metadata-7"
    folder.mkdir()
    segment = folder / "00000000000000000000.log"
    segment.write_bytes(builder.build())
    assert decoder_for(segment) == "remote-log-metadata"
    [record] = [event for event in dump_paths([tmp_path]) if event["event"] == "record"]
    assert record["type"] == "RemoteLogSegmentMetadataRecord" and record["apiKey"] == 0
    assert record["data"]["endOffset"] == 99
    assert record["data"]["remoteLogSegmentId"]["topicIdPartition"]["name"] == "t"
    assert record["data"]["txnIndexEmpty"] is True
