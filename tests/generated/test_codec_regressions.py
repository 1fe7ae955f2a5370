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
