"""kwire.network.errors against Kafka's own facts (tests/data/kafka-errors, taken from Kafka's classes)."""
from __future__ import annotations

import csv

import pytest

from kwire.generated import CreateTopicsResponse, MetadataResponse
from kwire.generated.create_topics_response import CreatableTopicResult
from kwire.generated.metadata_response import MetadataResponsePartition, MetadataResponseTopic
from kwire.network import errors
from kwire.network.errors import (
    ErrorCode,
    KafkaApiError,
    RetriableKafkaError,
    UnknownErrorCode,
    iter_errors,
    raise_first,
    raise_for,
)
from kwire.wire.errors import KwireError
from tests.optional import need_module
from tests.paths import DATA

FACTS = [(int(row["code"]), row["name"], row["retriable"] == "true")
         for row in csv.DictReader((DATA / "kafka-errors" / "errors.tsv").open(), delimiter="\t")]


def test_every_code_of_kafka_and_nothing_else():
    assert [(member.value, member.name) for member in ErrorCode] == [(code, name) for code, name, _ in FACTS]
    assert len(ErrorCode) == 135 and ErrorCode(-1) is ErrorCode.UNKNOWN_SERVER_ERROR


@pytest.mark.parametrize(("code", "name", "retriable"), FACTS, ids=[name for _, name, _ in FACTS])
def test_retriable_is_kafkas(code, name, retriable):
    member = ErrorCode[name]
    assert member == code and member.retriable is retriable
    assert member.description and member.description[0].isupper()


def test_a_few_well_known_verdicts():
    # spot checks straight from Kafka's exception classes, independent of the data file
    assert ErrorCode.NOT_LEADER_OR_FOLLOWER.retriable and ErrorCode.REQUEST_TIMED_OUT.retriable
    assert not ErrorCode.TOPIC_ALREADY_EXISTS.retriable and not ErrorCode.UNSUPPORTED_VERSION.retriable


def test_raise_for_raises_one_class_per_code():
    with pytest.raises(errors.UnknownTopicOrPartitionError) as raised:  # type: ignore[attr-defined]
        raise_for(3, "no such topic")
    error = raised.value
    assert isinstance(error, RetriableKafkaError) and isinstance(error, KwireError)
    assert error.code is ErrorCode.UNKNOWN_TOPIC_OR_PARTITION and error.retriable
    assert error.error_message == "no such topic" and "UNKNOWN_TOPIC_OR_PARTITION (3): no such topic" in str(error)
    with pytest.raises(errors.TopicAlreadyExistsError) as raised:  # type: ignore[attr-defined]
        raise_for(36)
    assert not raised.value.retriable and "already exists" in str(raised.value)
    assert raise_for(0) is None


def test_every_member_but_none_has_its_own_class():
    classes = {errors.EXCEPTIONS[m] for m in ErrorCode if m is not ErrorCode.NONE}
    assert len(classes) == len(ErrorCode) - 1 and ErrorCode.NONE not in errors.EXCEPTIONS


@pytest.mark.parametrize("code", [134, 999, -2, 32767, -32768])
def test_an_unknown_code_keeps_its_number(code):
    # kafka-python#2481: an unknown code must not crash the client, and the number must survive
    with pytest.raises(UnknownErrorCode) as raised:
        raise_for(code, "from a newer broker")
    assert raised.value.code == code and not raised.value.retriable and isinstance(raised.value, KafkaApiError)
    assert str(code) in str(raised.value)


def test_iter_errors_walks_nested_fields_with_paths_and_messages():
    response = MetadataResponse(topics=[
        MetadataResponseTopic(name="ok", partitions=[MetadataResponsePartition(partition_index=0)]),
        MetadataResponseTopic(name="t", error_code=0, partitions=[
            MetadataResponsePartition(partition_index=0),
            MetadataResponsePartition(partition_index=1, error_code=5)]),
        MetadataResponseTopic(name="gone", error_code=3)])
    found = list(iter_errors(response))
    assert [(r.path, r.code, r.message) for r in found] == [
        ("topics[1].partitions[1].error_code", ErrorCode.LEADER_NOT_AVAILABLE, None),
        ("topics[2].error_code", ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, None)]
    assert found[0].error.retriable


def test_iter_errors_takes_the_sibling_message_and_keeps_unknown_codes():
    response = CreateTopicsResponse(topics=[
        CreatableTopicResult(name="a", error_code=36, error_message="exists"),
        CreatableTopicResult(name="b", error_code=999, error_message="new")])
    found = list(iter_errors(response))
    assert [(r.path, r.code, r.message) for r in found] == [
        ("topics[0].error_code", ErrorCode.TOPIC_ALREADY_EXISTS, "exists"), ("topics[1].error_code", 999, "new")]
    with pytest.raises(errors.TopicAlreadyExistsError):  # type: ignore[attr-defined]
        raise_first(response)
    with pytest.raises(UnknownErrorCode):
        raise_first(response, ignore=frozenset({ErrorCode.TOPIC_ALREADY_EXISTS}))
    assert list(iter_errors(CreateTopicsResponse())) == []


# --- UNKNOWN_SERVER_ERROR (-1), the one negative code, in bytes kwire did not write -------------

def kio_create_topics_v7(*topics: dict) -> bytes:
    """A CreateTopicsResponse v7 body encoded by kio (an independent codec built from Kafka's JSON)."""
    import datetime
    import io

    from kio.schema.create_topics.v7 import response as kio_ct
    from kio.schema.errors import ErrorCode as KioErrorCode
    from kio.schema.types import TopicName
    from kio.serial import entity_writer
    from kio.static.primitive import i16, i32Timedelta

    results = tuple(kio_ct.CreatableTopicResult(
        name=TopicName(t["name"]), topic_id=None, error_code=KioErrorCode(t.get("error_code", 0)),
        error_message=t.get("error_message"), topic_config_error_code=i16(t.get("config_code", 0)),
        configs=None) for t in topics)
    out = io.BytesIO()
    entity_writer(kio_ct.CreateTopicsResponse)(out, kio_ct.CreateTopicsResponse(
        throttle_time=i32Timedelta.parse(datetime.timedelta(0)), topics=results))
    return out.getvalue()


def test_unknown_server_error_from_a_broker_is_found_and_raised_as_its_own_class():
    need_module("kio")
    data = kio_create_topics_v7(
        {"name": "fine"},
        {"name": "broken", "error_code": -1, "error_message": "the broker's log says more"},
        {"name": "config", "config_code": -1},                 # the tagged topic_config_error_code
        {"name": "lowest", "config_code": -32768},             # int16's bounds: codes no Kafka defines
        {"name": "highest", "config_code": 32767})
    response, end = CreateTopicsResponse.read(data, 0, 7)
    assert end == len(data)
    found = list(iter_errors(response))
    assert [(r.path, r.code, r.message) for r in found] == [
        ("topics[1].error_code", -1, "the broker's log says more"),
        ("topics[2].topic_config_error_code", -1, None),
        ("topics[3].topic_config_error_code", -32768, None),
        ("topics[4].topic_config_error_code", 32767, None)]
    assert found[0].code is ErrorCode.UNKNOWN_SERVER_ERROR and found[1].code is ErrorCode.UNKNOWN_SERVER_ERROR
    assert not isinstance(found[2].code, ErrorCode) and not isinstance(found[3].code, ErrorCode)

    with pytest.raises(errors.UnknownServerErrorError) as raised:  # type: ignore[attr-defined]
        raise_first(response)
    error = raised.value
    assert type(error) is not UnknownErrorCode and not isinstance(error, RetriableKafkaError)
    assert error.code is ErrorCode.UNKNOWN_SERVER_ERROR and not error.retriable
    assert str(error) == "UNKNOWN_SERVER_ERROR (-1): the broker's log says more"
    with pytest.raises(UnknownErrorCode) as raised:
        raise_first(response, ignore=frozenset({ErrorCode.UNKNOWN_SERVER_ERROR}))
    assert raised.value.code == -32768
    with pytest.raises(errors.UnknownServerErrorError, match=r"^UNKNOWN_SERVER_ERROR \(-1\): The broker hit"):  # type: ignore[attr-defined]
        raise_for(-1)
