"""kwire's JSON form beyond Kafka's: unknown tagged fields kept, and bad JSON refused with one clear
error naming the field path (``from_dict``). The mutation run (tests/README.md) found these paths
checked only by the slow fuzz tests; each case here pins the reason and the path exactly."""
from __future__ import annotations

import math
from typing import Any

import pytest

from kwire.generated import (
    ClientQuotaRecord,
    ConsumerGroupHeartbeatResponse,
    FetchRequest,
    MetadataResponse,
    SaslAuthenticateRequest,
    TopicRecord,
)
from kwire.wire.errors import DecodeError
from kwire.wire.uuids import uuid_from_text, uuid_to_text

SASL = {"authBytes": ""}
BROKER = {"nodeId": 1, "host": "h", "port": 1, "rack": None}
METADATA = {"throttleTimeMs": 0, "brokers": [BROKER], "clusterId": None, "controllerId": 1, "topics": []}
QUOTA = {"entity": [], "key": "k", "value": 1.5, "remove": False}


def test_unknown_tagged_fields_are_kept_sorted_in_base64() -> None:
    obj = SaslAuthenticateRequest(auth_bytes=b"x", unknown_tagged_fields=((5, b"\x01\xfb"), (3, b"")))
    document = obj.to_dict(2)
    assert document == {"authBytes": "eA==", "_unknownTaggedFields": [{"tag": 3, "data": ""},
                                                                      {"tag": 5, "data": "Afs="}]}
    again = SaslAuthenticateRequest.from_dict(document, 2)
    assert again.unknown_tagged_fields == ((3, b""), (5, b"\x01\xfb"))
    assert again.encode(2) == obj.encode(2)
    assert SaslAuthenticateRequest.from_dict(
        {"authBytes": "", "_unknownTaggedFields": [{"tag": 9, "data": "AA=="}, {"tag": 0, "data": ""}]}, 2
    ).unknown_tagged_fields == ((0, b""), (9, b"\x00"))


def test_no_unknown_tagged_fields_no_key() -> None:
    assert "_unknownTaggedFields" not in SaslAuthenticateRequest(auth_bytes=b"").to_dict(2)


def test_tagged_fields_at_their_default_are_left_out_and_read_back_as_default() -> None:
    request = FetchRequest(max_wait_ms=1, min_bytes=1)
    document = request.to_dict(17)
    assert "clusterId" not in document and "replicaState" not in document
    assert FetchRequest.from_dict(document, 17) == request


BAD_JSON = [
    (SaslAuthenticateRequest, 2, [], "expected a JSON object for SaslAuthenticateRequest, got list", ""),
    (SaslAuthenticateRequest, 2, {**SASL, "bogus": 1}, "SaslAuthenticateRequest has no field 'bogus'", "bogus"),
    (SaslAuthenticateRequest, 2, {}, "SaslAuthenticateRequest v2 needs field 'authBytes'", "auth_bytes"),
    (SaslAuthenticateRequest, 2, {"authBytes": None}, "null is not allowed for authBytes at version 2",
     "auth_bytes"),
    (SaslAuthenticateRequest, 2, {"authBytes": "!!"}, None, "auth_bytes"),
    (SaslAuthenticateRequest, 2, {**SASL, "_unknownTaggedFields": {}}, "unknown tagged fields must be a list",
     "_unknownTaggedFields"),
    (SaslAuthenticateRequest, 2, {**SASL, "_unknownTaggedFields": [{"tag": 1}]},
     "bad unknown tagged field {'tag': 1}: 'data'", "_unknownTaggedFields"),
    (SaslAuthenticateRequest, 2, {**SASL, "_unknownTaggedFields": [{"tag": 1, "data": "!"}]}, None,
     "_unknownTaggedFields"),
    (SaslAuthenticateRequest, 2, {**SASL, "_unknownTaggedFields": [{"tag": -1, "data": ""}]}, "bad tag -1",
     "_unknownTaggedFields"),
    (SaslAuthenticateRequest, 2, {**SASL, "_unknownTaggedFields": [{"tag": True, "data": ""}]}, "bad tag True",
     "_unknownTaggedFields"),
    (SaslAuthenticateRequest, 2, {**SASL, "_unknownTaggedFields": [{"tag": "1", "data": ""}]}, "bad tag '1'",
     "_unknownTaggedFields"),
    (MetadataResponse, 12, {**METADATA, "brokers": {}}, "expected a JSON array, got dict", "brokers"),
    (MetadataResponse, 12, {**METADATA, "brokers": None}, "null is not allowed for brokers at version 12", "brokers"),
    (MetadataResponse, 12, {**METADATA, "brokers": [BROKER, {**BROKER, "nodeId": "x"}]}, None,
     "brokers[1].node_id"),
    (MetadataResponse, 12, {**METADATA, "brokers": [{**BROKER, "port": True}]},
     "invalid int32 value True: expected an integer", "brokers[0].port"),
    (MetadataResponse, 12, {**METADATA, "brokers": [{**BROKER, "port": 2**31}]},
     f"invalid int32 value {2**31}: out of range {-2**31}..{2**31 - 1}", "brokers[0].port"),
    (MetadataResponse, 12, {**METADATA, "brokers": [{**BROKER, "host": 5}]},
     "invalid string value 5: expected a string", "brokers[0].host"),
    (MetadataResponse, 12, {**METADATA, "brokers": [{**BROKER, "extra": 1}]},
     "MetadataResponseBroker has no field 'extra'", "brokers[0].extra"),
    (MetadataResponse, 12, {**METADATA, "brokers": [{**BROKER, "_unknownTaggedFields": 1}]},
     "unknown tagged fields must be a list", "brokers[0]._unknownTaggedFields"),
    (MetadataResponse, 12, {**METADATA, "brokers": [{"nodeId": 1}]},
     "MetadataResponseBroker v12 needs field 'host'", "brokers[0].host"),
    (FetchRequest, 4, {"replicaId": -1, "maxWaitMs": 0, "minBytes": 0, "maxBytes": 0, "isolationLevel": 128,
                       "topics": []}, "invalid int8 value 128: out of range -128..127", "isolation_level"),
    (ConsumerGroupHeartbeatResponse, 0, {"throttleTimeMs": 0, "errorCode": 0, "errorMessage": None, "memberId": None,
                                         "memberEpoch": 0, "heartbeatIntervalMs": 0, "assignment": 5},
     "expected a JSON object for Assignment, got int", "assignment"),
    (ClientQuotaRecord, 0, {**QUOTA, "remove": "false"}, "invalid bool value 'false': expected true or false",
     "remove"),
    (ClientQuotaRecord, 0, {**QUOTA, "value": True}, "invalid float64 value True: expected a number", "value"),
    (ClientQuotaRecord, 0, {**QUOTA, "value": [1]}, "invalid float64 value [1]: expected a number", "value"),
]


# ids without spaces or quotes: mutmut selects tests by node id
@pytest.mark.parametrize(("cls", "version", "document", "reason", "path"), BAD_JSON,
                         ids=[f"{case[0].__name__}-{index}" for index, case in enumerate(BAD_JSON)])
def test_bad_json_is_one_decode_error_with_its_path(cls: Any, version: int, document: Any, reason: str | None,
                                                    path: str) -> None:
    with pytest.raises(DecodeError) as raised:
        cls.from_dict(document, version)
    assert raised.value.path == path
    if reason is not None:
        assert raised.value.reason == reason
    else:
        assert raised.value.reason.startswith("invalid ") or raised.value.reason.startswith("bad unknown")


def test_uuid_text_of_the_wrong_size_is_refused() -> None:
    topic = {"name": "t", "topicId": "AAAA"}
    with pytest.raises(DecodeError) as raised:
        TopicRecord.from_dict(topic, 0)
    assert raised.value.reason == ("invalid uuid value 'AAAA': Input string `AAAA` decoded as 3 bytes, which is not "
                                   "equal to the expected 16 bytes of a base64-encoded UUID")
    assert raised.value.path == "topic_id"
    with pytest.raises(ValueError, match="decoded as 18 bytes"):
        uuid_from_text("A" * 24)


def test_numbers_as_text_and_floats_from_integers_read_as_kafka_reads_them() -> None:
    quota = ClientQuotaRecord.from_dict({**QUOTA, "value": 3}, 0)
    assert quota.value == 3.0 and isinstance(quota.value, float)
    assert math.isnan(ClientQuotaRecord.from_dict({**QUOTA, "value": "NaN"}, 0).value)
    assert ClientQuotaRecord.from_dict({**QUOTA, "value": "-Infinity"}, 0).value == -math.inf
    assert MetadataResponse.from_dict({**METADATA, "controllerId": "-7"}, 12).controller_id == -7


def test_every_uuid_text_is_22_characters_of_base64url() -> None:
    import uuid

    for value in (uuid.UUID(int=0), uuid.UUID(int=2**128 - 1), uuid.UUID("fbff0011-2233-4455-6677-8899aabbccfe")):
        text = uuid_to_text(value)
        assert len(text) == 22 and "=" not in text and uuid_from_text(text) == value


def test_null_records_only_where_the_version_makes_them_nullable() -> None:
    # FetchSnapshotResponse's UnalignedRecords is never nullable: Kafka's generated reader turns it into
    # bytes with MessageUtil.jsonNodeToBinary, which refuses a null node. FetchResponse's Records is
    # nullable in every version ("nullableVersions": "0+"), so null reads as null there.
    from kwire.generated.fetch_snapshot_response import FetchSnapshotResponse, PartitionSnapshot, TopicSnapshot

    document = FetchSnapshotResponse(topics=[TopicSnapshot(name="__cluster_metadata",
                                                           partitions=[PartitionSnapshot(index=0)])]).to_dict(0)
    assert document["topics"][0]["partitions"][0]["unalignedRecords"] == ""
    document["topics"][0]["partitions"][0]["unalignedRecords"] = None
    with pytest.raises(DecodeError) as raised:
        FetchSnapshotResponse.from_dict(document, 0)
    assert raised.value.path == "topics[0].partitions[0].unaligned_records"
    assert raised.value.reason == "null is not allowed for unalignedRecords at version 0"

    from kwire.generated.fetch_response import FetchableTopicResponse, FetchResponse, PartitionData

    fetched = FetchResponse(responses=[FetchableTopicResponse(topic="t", partitions=[PartitionData(records=None)])])
    assert FetchResponse.from_dict(fetched.to_dict(4), 4).responses[0].partitions[0].records is None
