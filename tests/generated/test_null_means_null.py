"""None is Kafka's null, an omitted argument the definition's default (issue 24, section 1).

The facts (which fields are nullable at which versions, their defaults) are read from Apache
Kafka 4.2.1's own definition files, not from kwire's output; the bytes of a null are checked
against kio (a codec kwire shares no code with) and against the protocol's hand-worked layout.
"""
from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kwire import generated
from kwire.generator.definitions.jsonc import loads as load_jsonc
from kwire.wire.errors import EncodeError
from kwire.wire.message import DEFAULT
from tests.paths import KAFKA_421_DEFINITIONS

MAX = 0x7FFF


def versions(text: str | None) -> range:
    """Kafka's version syntax: "none", "3", "1-4", "2+"."""
    if text is None or text == "none":
        return range(0)
    low, _, high = text.partition("-")
    if low.endswith("+"):
        return range(int(low[:-1]), MAX + 1)
    return range(int(low), int(high or low) + 1)


def kafka_definitions() -> dict[str, dict[str, Any]]:
    """Kafka 4.2.1's definitions of the messages kwire ships, by name."""
    found = {}
    for path in sorted(Path(KAFKA_421_DEFINITIONS).rglob("*.json")):
        spec = load_jsonc(path.read_text())
        if spec["name"] in generated.MESSAGES:
            found[spec["name"]] = spec
    return found


KAFKA = kafka_definitions()


def snake(name: str) -> str:
    """Kafka's field name -> the Python attribute: looked up in the class by its JSON name."""
    return name[:1].lower() + name[1:]


def attr_of(cls: Any, kafka_field: dict[str, Any]) -> str:
    json_name = snake(kafka_field["name"])
    (info,) = [f for f in cls.FIELDS if f.json_name == json_name]
    return info.attr


def struct_fields(name: str) -> Iterator[tuple[str, Any, dict[str, Any], range]]:
    """(message, class, Kafka field, versions of the class) for every field of every struct of a
    message, nested and common structs included."""
    spec = KAFKA[name]
    message_cls = generated.MESSAGES[name]
    valid = versions(spec["validVersions"])
    common = {s["name"]: s for s in spec.get("commonStructs", [])}

    def walk(cls: Any, fields: list[dict[str, Any]]) -> Iterator[tuple[str, Any, dict[str, Any], range]]:
        for field in fields:
            yield name, cls, field, valid
            element = field["type"].removeprefix("[]")
            nested = field.get("fields") or common.get(element, {}).get("fields")
            if nested:
                info = next(f for f in cls.FIELDS if f.json_name == snake(field["name"]))
                yield from walk(info.struct, nested)

    yield from walk(message_cls, spec.get("fields", []))


NULLABLE = [(name, cls, field, valid) for name in sorted(KAFKA) for name, cls, field, valid in struct_fields(name)
            if field.get("nullableVersions")]


def test_kafka_has_nullable_fields_of_every_kind() -> None:
    kinds = {("array" if f["type"].startswith("[]") else f["type"] if f["type"] in ("string", "bytes", "records")
              else "struct") for _, _, f, _ in NULLABLE}
    assert kinds >= {"array", "string", "bytes", "struct"} and len(NULLABLE) > 80, (kinds, len(NULLABLE))


@pytest.mark.parametrize(("name", "cls", "field", "valid"), NULLABLE,
                         ids=[f"{n}.{c.NAME}.{f['name']}" for n, c, f, _ in NULLABLE])
def test_none_is_null_where_nullable_and_refused_elsewhere(name: str, cls: Any, field: dict[str, Any],
                                                           valid: range) -> None:
    attr = attr_of(cls, field)
    obj = cls(**{attr: None})
    assert getattr(obj, attr) is None
    present = set(versions(field.get("versions") or field["taggedVersions"])) & set(valid)
    nullable = set(versions(field["nullableVersions"]))
    low, high = cls.VALID_VERSIONS
    for version in sorted(present & set(range(low, high + 1))):
        if version in nullable:
            again = cls.decode(obj.encode(version), version)
            assert getattr(again, attr) is None, version
        else:
            with pytest.raises(EncodeError) as failure:
                obj.encode(version)
            message = str(failure.value)
            assert f"field {attr} is null" in message and "not allow" in message, message
            versions_named = re.search(r"versions? ([0-9,-]+) do", message)
            assert versions_named is not None, message
            named = set()
            for part in versions_named.group(1).split(","):
                first, _, last = part.partition("-")
                named |= set(range(int(first), int(last or first) + 1))
            assert version in named, message


def defaults_of_arrays_and_structs() -> list[tuple[Any, dict[str, Any]]]:
    return [(cls, field) for name in sorted(KAFKA) for _, cls, field, _ in struct_fields(name)
            if field["type"] not in ("string", "bytes", "records", "bool", "uuid", "float64")
            and not re.fullmatch(r"u?int(8|16|32|64)", field["type"])]


def test_an_omitted_argument_is_the_definitions_default() -> None:
    checked = 0
    for cls, field in defaults_of_arrays_and_structs():
        attr = attr_of(cls, field)
        value = getattr(cls(), attr)
        # (a JSON null is no default at all: Kafka's FieldSpec reads it as "")
        if field.get("default") == "null":
            assert value is None, (cls.NAME, attr)
        elif field["type"].startswith("[]"):
            assert value == [] and value is not getattr(cls(), attr), (cls.NAME, attr)  # a fresh list each time
        else:
            struct = next(f.struct for f in cls.FIELDS if f.attr == attr)
            assert type(value) is struct and value == struct(), (cls.NAME, attr)
        checked += 1
    assert checked > 400


def test_metadata_request_none_asks_for_all_topics() -> None:
    # The example: null topics means "all topics", an empty array "no topics".
    from kwire.generated import MetadataRequest

    # v4: topics (int32 count, -1 for null), then allow_auto_topic_creation (bool)
    assert MetadataRequest(topics=None).encode(4) == b"\xff\xff\xff\xff\x01"
    assert MetadataRequest(topics=[]).encode(4) == MetadataRequest().encode(4) == b"\x00\x00\x00\x00\x01"
    m = MetadataRequest()
    m.topics = None
    assert m.encode(4) == MetadataRequest(topics=None).encode(4)
    # v0 has no null: refused, naming the field and the version
    with pytest.raises(EncodeError, match=r"field topics is null, which MetadataRequest version 0 does not allow "
                                          r"\(nullable in versions 1\+\)"):
        MetadataRequest(topics=None).encode(0)


@pytest.mark.parametrize("version", [1, 4, 9, 12])
def test_null_topics_are_the_bytes_kio_writes(version: int) -> None:
    from kio.serial import entity_writer

    from kwire.generated import MetadataRequest

    kio_module = __import__(f"kio.schema.metadata.v{version}.request", fromlist=["MetadataRequest"])
    kio_cls = kio_module.MetadataRequest
    kio_fields = {f for f in kio_cls.__dataclass_fields__ if not f.startswith("_")}
    kio_obj = kio_cls(topics=None, **{f: f == "allow_auto_topic_creation" for f in kio_fields - {"topics"}})
    buffer = io.BytesIO()
    entity_writer(kio_cls)(buffer, kio_obj)
    ours = MetadataRequest(topics=None)
    assert ours.encode(version) == buffer.getvalue()


def test_a_keyed_array_takes_none_and_any_list() -> None:
    from kwire.generated import ApiVersionsResponse, CreateTopicsRequest
    from kwire.generated.create_topics_request import CreatableReplicaAssignment, CreatableTopic
    from kwire.wire.keyed_list import KeyedList

    # never nullable: stored as given, refused at encode with the versions that refuse it
    response = ApiVersionsResponse(api_keys=None)  # type: ignore[arg-type]
    assert response.api_keys is None
    with pytest.raises(EncodeError, match="field api_keys is null, which ApiVersionsResponse version 0 does not "
                                          r"allow \(never nullable\)"):
        response.encode(0)
    with pytest.raises(EncodeError, match="field api_keys is null, which ApiVersionsResponse versions 1-2 do not "):
        response.encode(2)
    topic = CreatableTopic(name="t", assignments=[CreatableReplicaAssignment(partition_index=0, broker_ids=[1])])
    assert type(topic.assignments) is KeyedList and topic.assignments.find(0) is not None
    assert type(CreatableTopic().assignments) is KeyedList and CreateTopicsRequest().topics == []


def test_off_the_hot_path_null_is_refused_with_the_same_error() -> None:
    # Writers of cold definitions refuse None through the runtime (_w.non_null), not inline: the
    # error still names the field, the writer's versions, where null is allowed, and the path, in
    # which the runtime's array writer names each element (hot writers leave "[]").
    from kwire.generated import (
        ConsumerGroupDescribeResponse,
        CreateDelegationTokenResponse,
        DescribeAclsResponse,
        FetchSnapshotResponse,
    )
    from kwire.generated import consumer_group_describe_response as cgd
    from kwire.generated import describe_acls_response as dar
    from kwire.generated import fetch_snapshot_response as fsr

    cases = [  # (instance, version, message, path): an array, a string, bytes, records, a struct
        (DescribeAclsResponse(resources=[dar.DescribeAclsResource(acls=None)]), 1,  # type: ignore[arg-type]
         "field acls is null, which DescribeAclsResource versions 0-1 do not allow (never nullable)",
         "resources[0].acls"),
        (DescribeAclsResponse(resources=[dar.DescribeAclsResource(acls=[dar.AclDescription(principal=None)])]), 1,  # type: ignore[arg-type]
         "field principal is null, which AclDescription versions 0-1 do not allow (never nullable)",
         "resources[0].acls[0].principal"),
        (CreateDelegationTokenResponse(hmac=None), 0,  # type: ignore[arg-type]
         "field hmac is null, which CreateDelegationTokenResponse versions 0-1 do not allow (never nullable)", "hmac"),
        (FetchSnapshotResponse(topics=[fsr.TopicSnapshot(
            partitions=[fsr.PartitionSnapshot(unaligned_records=None)])]), 0,  # type: ignore[arg-type]
         "field unaligned_records is null, which PartitionSnapshot versions 0-1 do not allow (never nullable)",
         "topics[0].partitions[0].unaligned_records"),
        (ConsumerGroupDescribeResponse(groups=[cgd.DescribedGroup(members=[cgd.Member(assignment=None)])]), 0,  # type: ignore[arg-type]
         "field assignment is null, which Member versions 0-1 do not allow (never nullable)",
         "groups[0].members[0].assignment"),
    ]
    for obj, version, message, path in cases:
        with pytest.raises(EncodeError) as caught:
            obj.encode(version)
        assert (caught.value.reason, caught.value.path) == (message, path)


def test_default_reads_as_its_name_and_survives_copies() -> None:
    import copy
    import inspect
    import pickle

    from kwire.generated import MetadataRequest

    assert repr(DEFAULT) == "DEFAULT"
    assert copy.deepcopy(DEFAULT) is DEFAULT and pickle.loads(pickle.dumps(DEFAULT)) is DEFAULT
    parameter = inspect.signature(MetadataRequest).parameters["topics"]
    assert parameter.default is DEFAULT and "None" in str(parameter.annotation)
