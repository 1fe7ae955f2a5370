"""Bugs found in the generated codecs, each pinned by the smallest case that showed it."""
from __future__ import annotations

from kwire.generated import FetchRequest


def test_short_string_inside_a_tagged_field_keeps_the_payload_end() -> None:
    # The inline short-string reader once reused the local that held the tagged payload's end,
    # so a tagged string (FetchRequest.ClusterId, tag 0 from v12) failed to decode. Found by the
    # construct-oracle agreement test.
    request = FetchRequest(cluster_id="abc", replica_id=-1)
    for version in (12, 13, 17):
        assert FetchRequest.decode(request.encode(version), version) == request


def test_a_count_of_one_spelled_in_two_varint_bytes_reads_as_empty() -> None:
    # Kafka's ByteUtils.readUnsignedVarint takes a varint that spells 1 in more bytes than needed
    # (0x81 0x00). The one-byte fast path for empty arrays and strings does not see it, so the
    # long way must still handle a count or length of 0: an empty struct array once reached its
    # element loop instead and failed with UnboundLocalError (found by the hostile-input fuzzer).
    from kwire.generated import MetadataRequest, OffsetCommitRequest
    from kwire.generated.offset_commit_request import OffsetCommitRequestPartition, OffsetCommitRequestTopic

    canonical = MetadataRequest(topics=[]).encode(12)
    assert canonical[0] == 0x01  # the topics count: 0 elements
    decoded = MetadataRequest.decode(b"\x81\x00" + canonical[1:], 12)
    assert decoded.topics == [] and decoded.encode(12) == canonical

    commit = OffsetCommitRequest(group_id="g", topics=[OffsetCommitRequestTopic(
        name="t", partitions=[OffsetCommitRequestPartition(committed_metadata="")])])
    wire = commit.encode(9)
    # The partition's metadata string is the byte 0x01 before its empty tag section (0x00),
    # which closes the partition, the topic and the request: ... 01 00 00 00.
    assert wire.endswith(b"\x01\x00\x00\x00")
    longer = wire[:-4] + b"\x81\x00" + wire[-3:]
    assert OffsetCommitRequest.decode(longer, 9) == commit


def _kio_fetch_v12(aborted, records: bytes | None = b"\x00" * 200, leader: tuple[int, int] | None = None) -> bytes:
    """A FetchResponse v12 of one partition written by kio (not kwire), with ``aborted`` as its
    aborted transactions: None (null, what Kafka sends for read_uncommitted), () or a tuple; then
    ``records`` (None: null) and, when given, the tagged current leader (id, epoch) after them."""
    import datetime
    import io

    from kio.schema.errors import ErrorCode
    from kio.schema.fetch.v12 import response as kio_fetch
    from kio.schema.types import BrokerId, TopicName
    from kio.serial import entity_writer
    from kio.static.primitive import i32, i64

    partition = kio_fetch.PartitionData(
        partition_index=i32(3), error_code=ErrorCode.none, high_watermark=i64(70000),
        last_stable_offset=i64(69999), log_start_offset=i64(0), aborted_transactions=aborted,
        preferred_read_replica=BrokerId(-1), records=records,
        **({} if leader is None else {"current_leader": kio_fetch.LeaderIdAndEpoch(
            leader_id=BrokerId(leader[0]), leader_epoch=i32(leader[1]))}))
    message = kio_fetch.FetchResponse(
        throttle_time=datetime.timedelta(0), error_code=ErrorCode.none, session_id=i32(0),
        responses=(kio_fetch.FetchableTopicResponse(topic=TopicName("t"), partitions=(partition,)),))
    out = io.BytesIO()
    entity_writer(kio_fetch.FetchResponse)(out, message)
    return out.getvalue()


def test_a_fetch_partition_reads_null_empty_and_present_aborted_transactions() -> None:
    # The fixed fields, a null or empty aborted-transactions count and preferred_read_replica are
    # read with one struct call (EmptyArrayBridge); any other count takes the steps one by one.
    # Both ways must give the same fields, whichever the count byte is.
    from kio.schema.fetch.v12 import response as kio_fetch
    from kio.static.primitive import i64

    from kwire.generated import FetchResponse
    from kwire.generated.fetch_response import AbortedTransaction

    one = (kio_fetch.AbortedTransaction(producer_id=i64(9), first_offset=i64(69000)),)
    for aborted, expected in ((None, None), ((), []), (one, [AbortedTransaction(producer_id=9, first_offset=69000)])):
        wire = _kio_fetch_v12(aborted)
        partition = FetchResponse.decode(wire, 12).responses[0].partitions[0]
        assert partition.aborted_transactions == expected
        assert (partition.partition_index, partition.error_code, partition.high_watermark,
                partition.last_stable_offset, partition.log_start_offset, partition.preferred_read_replica) == \
            (3, 0, 70000, 69999, 0, -1)
        assert bytes(partition.records) == b"\x00" * 200
        assert FetchResponse.decode(wire, 12).encode(12) == wire


def test_a_fetch_partition_cut_short_names_the_field_it_ends_in() -> None:
    # The one-call read checks its bounds first: input that ends inside it takes the steps one by
    # one, so the error still names the field where the bytes ran out.
    import pytest

    from kwire.generated import FetchResponse
    from kwire.wire.errors import DecodeError

    wire = _kio_fetch_v12(None)
    start = wire.index(b"\x02t") + 3  # after the topic name (compact "t") and the partition count
    # (the one call also reads the records length's first two bytes, 0xC9 0x01 for 200 bytes:
    # cut before or inside them, the error names records)
    for cut, field in ((start + 10, "partition_index, error_code"), (start + 30, "aborted_transactions"),
                       (start + 33, "preferred_read_replica"), (start + 35, "records"), (start + 36, "records"),
                       (start + 100, "records")):
        with pytest.raises(DecodeError) as failure:
            FetchResponse.decode(wire[:cut], 12)
        assert f"partitions[0].{field}" in str(failure.value), (cut, str(failure.value))


def test_a_fetch_partition_reads_its_records_length_in_every_width_and_null() -> None:
    # The one struct call of a partition also reads the first two bytes of the records length:
    # a length of one or two varint bytes is taken from them, a longer one (16,383 bytes and up),
    # null, or any length when the aborted transactions are not null or empty, the long way.
    # Each must leave the view over the very bytes kio wrote and ``pos`` at the tagged section
    # (the current leader after it reads back).
    from kio.schema.fetch.v12 import response as kio_fetch
    from kio.static.primitive import i64

    from kwire.generated import FetchResponse
    from kwire.records import RecordsView

    one = (kio_fetch.AbortedTransaction(producer_id=i64(9), first_offset=i64(69000)),)
    # lengths whose varint (length + 1) is 1 byte (0, 126), 2 bytes (127, 16382), 3 bytes (16383)
    for size in (0, 1, 126, 127, 200, 16382, 16383, 70000):
        body = bytes(range(256)) * (size // 256) + bytes(range(size % 256))
        for aborted in (None, (), one):
            wire = _kio_fetch_v12(aborted, body, leader=(5, 8))
            partition = FetchResponse.decode(wire, 12).responses[0].partitions[0]
            assert isinstance(partition.records, RecordsView) and bytes(partition.records) == body, (size, aborted)
            assert (partition.current_leader.leader_id, partition.current_leader.leader_epoch) == (5, 8)
            assert FetchResponse.decode(wire, 12).encode(12) == wire
    for aborted in (None, (), one):
        wire = _kio_fetch_v12(aborted, None, leader=(5, 8))
        partition = FetchResponse.decode(wire, 12).responses[0].partitions[0]
        assert partition.records is None and partition.current_leader.leader_epoch == 8
        assert FetchResponse.decode(wire, 12).encode(12) == wire


def test_a_decoded_records_field_is_made_on_first_read_and_kept() -> None:
    # Pure readers keep where a records field lies and make its RecordsView when it is first
    # read: a consumer that never reads it makes no object for it. Reading it, comparing or
    # re-encoding the message sees the same view as an eager reader would have set.
    import copy
    import pickle

    from kwire.generated import FetchResponse
    from kwire.generated.fetch_response import PartitionData
    from kwire.records import RecordsView

    wire = _kio_fetch_v12(None, b"\x07" * 300)
    partition = FetchResponse.decode(wire, 12).responses[0].partitions[0]
    slot = PartitionData.__dict__["records"]  # the slot itself, past the first-read hook
    try:
        slot.__get__(partition, PartitionData)
        made_before_read = True
    except AttributeError:
        made_before_read = False
    assert not made_before_read
    view = partition.records
    assert isinstance(view, RecordsView) and bytes(view) == b"\x07" * 300 and len(view) == 300
    assert slot.__get__(partition, PartitionData) is view and partition.records is view
    again = FetchResponse.decode(wire, 12).responses[0].partitions[0]
    assert again == partition and repr(again) == repr(partition)  # made by == and repr too
    fresh = [FetchResponse.decode(wire, 12).responses[0].partitions[0] for _ in range(3)]  # not read yet
    for clone in (copy.copy(fresh[0]), copy.deepcopy(fresh[1]), pickle.loads(pickle.dumps(fresh[2]))):
        assert bytes(clone.records) == b"\x07" * 300
    built = PartitionData(records=b"\x07" * 300)  # the constructor sets the field as before
    assert built.records == b"\x07" * 300
    assert not hasattr(PartitionData(), "_records_buf")
