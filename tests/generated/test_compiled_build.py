"""The mypyc-compiled build decodes and encodes exactly as the pure-Python build.

The compiled modules (``kwcompiled``, see tests/generated/compiled_build.py) are held to the same outside
references as generated/: the hand-worked vectors of test_golden_vectors, kio's encoder and
parser (test_kio_differential's check), and the captured client/broker frames. On top, every
truncation and a sweep of corrupted inputs must fail the same way in both builds (same
DecodeError reason, field path and offset), since the compiled readers read fixed-width fields
their own way.
"""
from __future__ import annotations

import importlib
import inspect
import random
import sys
import uuid

import pytest

import tests.generated.test_golden_vectors as golden
from kwire import generated
from kwire.generator.native.build import extension_suffix
from kwire.wire.errors import KwireError
from tests.generated.compiled_build import SUBSET
from tests.generated.test_kio_differential import KIO, PAIRS, check_agreement, entity_strategy
from tests.network.test_captures import all_seen, deviation
from tests.optional import missing
from tests.packages import HealthCheck, given, settings


def compiled_class(package, cls: type) -> type:
    """The compiled twin of a generated/ class (messages and nested structs alike)."""
    module = sys.modules[cls.__module__.replace("kwire.generated.", f"{package.__name__}.", 1)]
    return getattr(module, cls.__name__)


def test_only_the_subset_is_compiled(compiled_generated) -> None:
    for name, cls in compiled_generated.MESSAGES.items():
        compiled = sys.modules[cls.__module__].__file__.endswith(extension_suffix())
        assert compiled == (name in SUBSET), name
    # the pure modules of the package still import from kwire, the compiled ones from _base
    assert compiled_generated.ApiVersionsResponse.__mro__[1].__module__ == "kwcompiled._base"
    assert compiled_generated.FetchRequest.__mro__[1].__module__ == "kwire.wire.struct_base"


def test_compiled_classes_keep_their_class_attributes(compiled_generated) -> None:
    # kwire.network finds a message's classes by cls.API_KEY and cls.MESSAGE_TYPE
    from kwire.wire.index import load

    for name in SUBSET:
        compiled, pure = compiled_generated.MESSAGES[name], generated.MESSAGES[name]
        for attr in ("NAME", "API_KEY", "MESSAGE_TYPE", "FLEXIBLE_VERSIONS", "VALID_VERSIONS", "STABLE_VERSIONS",
                     "DEPRECATED_VERSIONS", "LISTENERS"):
            assert getattr(compiled, attr, None) == getattr(pure, attr, None), (name, attr)
    assert compiled_generated.MESSAGES["MetadataRequest"].LISTENERS == frozenset({"broker"})
    assert compiled_generated.APIS[3].request_class is compiled_generated.MESSAGES["MetadataRequest"]
    index = load(compiled_generated)
    assert index.request_class(18) is compiled_generated.MESSAGES["ApiVersionsRequest"]
    assert index.response_class(1) is compiled_generated.MESSAGES["FetchResponse"]


# --- hand-worked vectors -------------------------------------------------------------------------

def golden_cases() -> list:
    """Every test of test_golden_vectors, expanded over its parametrize marks."""
    cases = []
    for name, fn in inspect.getmembers(golden, inspect.isfunction):
        if not name.startswith("test_"):
            continue
        marks = [m for m in getattr(fn, "pytestmark", []) if m.name == "parametrize"]
        if not marks:
            cases.append(pytest.param(fn, {}, id=name))
            continue
        (mark,) = marks
        argname = mark.args[0]
        for value in mark.args[1]:
            cases.append(pytest.param(fn, {argname: value}, id=f"{name}[{value}]"))
    return cases


@pytest.mark.parametrize(("test", "kwargs"), golden_cases())
def test_hand_worked_vectors(test, kwargs, compiled_generated, monkeypatch) -> None:
    # run the very same test with the module's generated classes swapped for compiled ones
    swapped = 0
    for name, value in vars(golden).items():
        if isinstance(value, type) and value.__module__.startswith("kwire.generated."):
            monkeypatch.setattr(golden, name, compiled_class(compiled_generated, value))
            swapped += 1
    assert swapped >= 5
    test(**kwargs)


# --- kio -------------------------------------------------------------------------------------------

KIO_PAIRS = [(name, version) for name, version in PAIRS if name in SUBSET]


def test_kio_pairs_cover_the_subset() -> None:
    assert {name for name, _ in KIO_PAIRS} >= {"ApiVersionsResponse", "MetadataResponse", "FetchResponse"}
    assert len(KIO_PAIRS) >= 40


@pytest.mark.parametrize(("name", "version"), KIO_PAIRS, ids=[f"{n}-v{v}" for n, v in KIO_PAIRS])
def test_kio_and_compiled_kwire_agree(name: str, version: int, compiled_generated) -> None:
    kwire_cls = compiled_generated.MESSAGES[name]

    @settings(max_examples=15, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(entity_strategy(KIO[(name, version)]))
    def agree(entity) -> None:
        check_agreement(entity, kwire_cls, version)

    agree()


# --- captured frames ---------------------------------------------------------------------------

def test_captured_frames_decode_and_re_encode_the_same(compiled_generated) -> None:
    checked = set()
    for seen in all_seen():
        if seen.parsed is None or deviation(seen.capture, seen.entry) is not None:
            continue
        pure = seen.parsed.body
        name = type(pure).NAME
        if name not in SUBSET:
            continue
        version = seen.entry["api_version"]
        body = seen.data[seen.body_start():]
        compiled = compiled_generated.MESSAGES[name].decode(body, version)
        assert compiled.to_dict(version) == pure.to_dict(version), seen.name
        assert compiled.encode(version) == body, seen.name
        checked.add((name, version))
    assert {name for name, _ in checked} >= {"ApiVersionsRequest", "ApiVersionsResponse", "MetadataRequest",
                                            "MetadataResponse", "FetchResponse"}


# --- same failures -------------------------------------------------------------------------------

def failure(cls: type, data: bytes, version: int) -> tuple:
    """What decoding does: the JSON form of the result, or the error's type, reason, path, offset."""
    try:
        return ("ok", cls.decode(data, version).to_dict(version))
    except KwireError as exc:
        return (type(exc).__name__, getattr(exc, "reason", str(exc)), getattr(exc, "path", ""),
                getattr(exc, "offset", None))


def sample_messages() -> list[tuple[str, int, bytes]]:
    from kwire.generated.api_versions_response import ApiVersion, ApiVersionsResponse, SupportedFeatureKey
    from kwire.generated.metadata_response import MetadataResponse, MetadataResponsePartition, MetadataResponseTopic
    from kwire.generated.partition_record import PartitionRecord

    api = ApiVersionsResponse(api_keys=[ApiVersion(api_key=k, max_version=k % 5) for k in range(5)],
                              supported_features=[SupportedFeatureKey(name="kraft.version", max_version=1)],
                              finalized_features_epoch=3)
    metadata = MetadataResponse(cluster_id="c", topics=[MetadataResponseTopic(
        name="t", topic_id=uuid.UUID(int=7), partitions=[MetadataResponsePartition(
            partition_index=p, leader_id=1, replica_nodes=[1, 2, -3], isr_nodes=[1]) for p in range(2)])])
    record = PartitionRecord(partition_id=1, topic_id=uuid.UUID(int=9), replicas=[1, 2], isr=[1],
                             leader=-2, directories=[uuid.UUID(int=1), uuid.UUID(int=2)])
    return [("ApiVersionsResponse", 3, api.encode(3)), ("ApiVersionsResponse", 0, api.encode(0)),
            ("MetadataResponse", 12, metadata.encode(12)), ("MetadataResponse", 1, metadata.encode(1)),
            ("PartitionRecord", 1, record.encode(1)), ("PartitionRecord", 0, PartitionRecord(
                partition_id=1, topic_id=uuid.UUID(int=9), replicas=[1, 2], isr=[1], leader=-2).encode(0))]


@pytest.mark.parametrize(("name", "version", "data"), sample_messages(),
                         ids=[f"{n}-v{v}" for n, v, _ in sample_messages()])
def test_truncated_and_corrupted_input_fails_the_same_way(name, version, data, compiled_generated) -> None:
    pure, compiled = generated.MESSAGES[name], compiled_generated.MESSAGES[name]
    assert failure(compiled, data, version) == failure(pure, data, version) != ("ok", None)
    for end in range(len(data)):
        assert failure(compiled, data[:end], version) == failure(pure, data[:end], version), end
    rng = random.Random(f"{name}-{version}")
    for _ in range(300):
        mangled = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            mangled[rng.randrange(len(mangled))] = rng.choice([0, 0x7F, 0x80, 0xFF, rng.randrange(256)])
        assert failure(compiled, bytes(mangled), version) == failure(pure, bytes(mangled), version), mangled.hex()


def test_compiled_objects_keep_the_public_api(compiled_generated) -> None:
    from kwcompiled.fetch_response import EpochEndOffset, LeaderIdAndEpoch, PartitionData, SnapshotId

    first, second = PartitionData(), PartitionData()
    assert first.diverging_epoch == EpochEndOffset() and first.diverging_epoch is not second.diverging_epoch
    first.diverging_epoch.epoch = 5  # a default struct is the caller's to mutate
    assert second.diverging_epoch.epoch == -1
    decoded = PartitionData.decode(PartitionData(records=b"").encode(12), 12)
    assert decoded.aborted_transactions == [] and decoded.diverging_epoch == EpochEndOffset()
    # Compiled, an absent tagged struct is made on its first read (a property): still a fresh
    # default per object, and one set or mutated afterwards is encoded as a tagged field.
    other = PartitionData.decode(PartitionData(records=b"").encode(12), 12)
    assert other.current_leader is not decoded.current_leader
    other.current_leader.leader_id = 3
    decoded.snapshot_id = SnapshotId(end_offset=9, epoch=1)
    assert PartitionData.decode(other.encode(12), 12).current_leader.leader_id == 3
    assert PartitionData.decode(decoded.encode(12), 12).snapshot_id == SnapshotId(end_offset=9, epoch=1)
    assert decoded.current_leader == LeaderIdAndEpoch()
    with pytest.raises(KwireError):
        PartitionData.decode(b"\x00", 12)
    with pytest.raises(KwireError):
        PartitionData(partition_index=2**31).encode(12)


def test_compiled_classes_compare_and_repr_like_pure_ones(compiled_generated) -> None:
    # __eq__, __repr__ and __hash__ = None live in the compiled base class (_base) and read FIELDS
    from kwcompiled.fetch_response import EpochEndOffset, PartitionData

    from kwire.generated.fetch_response import EpochEndOffset as PureEpochEndOffset

    decoded = PartitionData.decode(PartitionData(records=b"").encode(12), 12)
    assert decoded == PartitionData(records=b"") and decoded != PartitionData(records=b"", partition_index=1)
    assert decoded != PartitionData(records=b"", unknown_tagged_fields=((9, b""),))
    assert EpochEndOffset().__eq__(PartitionData()) is NotImplemented and EpochEndOffset() != PureEpochEndOffset()
    assert repr(EpochEndOffset(epoch=3)) == repr(PureEpochEndOffset(epoch=3)) == (
        "EpochEndOffset(epoch=3, end_offset=-1, unknown_tagged_fields=())")
    with pytest.raises(TypeError, match="unhashable"):
        hash(EpochEndOffset())


def test_compiled_none_is_null_and_omitted_is_the_default(compiled_generated) -> None:
    from kwcompiled.metadata_request import MetadataRequest, MetadataRequestTopic

    assert MetadataRequest(topics=None).encode(4) == b"\xff\xff\xff\xff\x01"  # null: all topics
    assert MetadataRequest().encode(4) == b"\x00\x00\x00\x00\x01" and MetadataRequest().topics == []
    assert MetadataRequest().topics is not MetadataRequest().topics
    topics = [MetadataRequestTopic(name="t")]
    assert MetadataRequest(topics=topics).topics is topics
    with pytest.raises(KwireError, match="field topics is null, which MetadataRequest version 0 does not allow"):
        MetadataRequest(topics=None).encode(0)


def test_compiled_fixed_width_readers_match_struct(compiled_generated) -> None:
    # The compiled base reads fixed-width integers with machine-integer arithmetic; hold it to
    # struct's big-endian formats at the edges of every range and at random, at odd offsets too.
    import struct

    base = sys.modules[f"{compiled_generated.__name__}._base"]
    assert (base.__file__ or "").endswith(extension_suffix())
    formats = {"read_int16": ">h", "read_uint16": ">H", "read_int32": ">i", "read_uint32": ">I", "read_int64": ">q"}
    rng = random.Random(18)
    edges = [bytes([b] * 8) for b in (0x00, 0x7F, 0x80, 0xFF)] + [b"\x80" + bytes(7), b"\x7f" + b"\xff" * 7]
    for name, fmt in formats.items():
        read = getattr(base, name)
        for data in edges + [rng.randbytes(11) for _ in range(500)]:
            for pos in range(len(data) - struct.calcsize(fmt) + 1):
                assert read(data, pos) == struct.unpack_from(fmt, data, pos)[0], (name, data.hex(), pos)
        with pytest.raises(IndexError):
            read(b"\x01", 0)


def test_a_nullable_struct_with_a_default_compiles() -> None:
    # The one struct field of message_defs that is nullable yet has a non-null default
    # (ConsumerGroupMemberMetadataValue.ClassicMemberMetadata, a JSON null default being no
    # default): its omitted-argument marker is an instance made at import, which a native class
    # must build through its constructor. Not in the shared subset, so built here, alone.
    from kwire.generator.definitions.loader import load_definitions
    from kwire.generator.native.build import CompileUnavailable, cached_build
    from tests.generated.compiled_build import CACHE
    from tests.paths import MESSAGE_DEFS

    name = "ConsumerGroupMemberMetadataValue"
    try:
        root = cached_build(load_definitions([MESSAGE_DEFS]), "kwnullable", CACHE / "nullable", only={name})
    except CompileUnavailable as exc:
        missing(f"no compiled build: {exc}")
    sys.path.insert(0, str(root))
    try:
        module = importlib.import_module("kwnullable.consumer_group_member_metadata_value")
    finally:
        sys.path.remove(str(root))
    assert (module.__file__ or "").endswith(extension_suffix())
    cls = getattr(module, name)
    assert cls().classic_member_metadata == module.ClassicMemberMetadata()
    assert cls().classic_member_metadata is not cls().classic_member_metadata
    assert cls(classic_member_metadata=None).classic_member_metadata is None
    from kwire.generated.consumer_group_member_metadata_value import ClassicMemberMetadata as PureClassic

    pure = generated.MESSAGES[name]
    for compiled_value, pure_value in ((None, None), (module.ClassicMemberMetadata(session_timeout_ms=5),
                                                      PureClassic(session_timeout_ms=5))):
        obj = cls(classic_member_metadata=compiled_value)
        data = obj.encode(0)
        assert cls.decode(data, 0) == obj and pure(classic_member_metadata=pure_value).encode(0) == data


# --- issue 38: integers read inline (librt), leading runs read into the constructor ----------------

INT16, INT32 = (-2**15, -1, 0, 2**15 - 1), (-2**31, -1, 0, 1, 2**31 - 1)
# int64 at its bounds and where mypyc's tagged integers end (63 bits: 2**62 needs a boxed int)
INT64 = (-2**63, -2**62 - 1, -2**62, -1, 0, 2**62 - 1, 2**62, 2**63 - 1)


def test_compiled_integer_fields_at_their_bounds(compiled_generated) -> None:
    # Bytes packed by struct (not by kwire's writers): FetchResponse v12's PartitionData (its
    # five leading integers go to the native constructor) and MetadataResponse v12's partition
    # (four leading integers, then int32 arrays), every field at its type's edges.
    import struct

    from kwcompiled.fetch_response import PartitionData
    from kwcompiled.metadata_response import MetadataResponsePartition

    rng = random.Random(38)
    for _ in range(60):
        index, error, *offsets, replica = (rng.choice(INT32), rng.choice(INT16), *rng.choices(INT64, k=3),
                                           rng.choice(INT32))
        data = struct.pack(">ihqqqBiBB", index, error, *offsets, 0, replica, 1, 0)  # null aborted, empty records
        partition = PartitionData.decode(data, 12)
        assert (partition.partition_index, partition.error_code, partition.high_watermark,
                partition.last_stable_offset, partition.log_start_offset, partition.preferred_read_replica) == (
            index, error, *offsets, replica), data.hex()
        assert partition.aborted_transactions is None and bytes(partition.records) == b""
        assert partition.encode(12) == data

        replicas = rng.choices(INT32, k=rng.randint(0, 4))
        fields = (rng.choice(INT16), *rng.choices(INT32, k=3))
        data = struct.pack(">hiii", *fields) + bytes([len(replicas) + 1]) + struct.pack(f">{len(replicas)}i", *replicas)
        data += b"\x02" + struct.pack(">i", replicas[0] if replicas else 7) + b"\x01\x00"  # isr: one; offline: none
        partition = MetadataResponsePartition.decode(data, 12)
        assert (partition.error_code, partition.partition_index, partition.leader_id, partition.leader_epoch) == fields
        assert partition.replica_nodes == replicas and partition.offline_replicas == []
        assert partition.encode(12) == data


def test_compiled_records_views_are_native_and_records_views(compiled_generated) -> None:
    from kwcompiled.fetch_response import FetchResponse, PartitionData

    from kwire.generated.fetch_response import FetchableTopicResponse
    from kwire.generated.fetch_response import FetchResponse as PureFetchResponse
    from kwire.generated.fetch_response import PartitionData as PurePartitionData
    from kwire.records import RecordsView
    from kwire.wire.errors import DecodeError
    from tests.records.test_framing_details import kafka_batch  # kafka-python's batch builder

    records = kafka_batch(0, (b"a", b"b", b"c")) + kafka_batch(3, (b"d",))
    wire = PureFetchResponse(responses=[FetchableTopicResponse(
        topic="t", partitions=[PurePartitionData(partition_index=1, records=records)])]).encode(12)
    plain = PureFetchResponse.decode(wire, 12).responses[0].partitions[0].records
    view = FetchResponse.decode(wire, 12).responses[0].partitions[0].records
    # made by the native twin compiled beside _base, and still a kwire.records.RecordsView
    assert type(view).__module__ == "kwcompiled._records_view" and type(plain) is RecordsView
    assert isinstance(view, RecordsView)
    assert view == plain and plain == view and view == records and not view != plain
    assert bytes(view) == records and len(view) == len(records) and repr(view) == repr(plain)
    assert [b.base_offset for b in view] == [b.base_offset for b in plain] and len(list(view)) == 2
    assert [r.value for r in view.records()] == [r.value for r in plain.records()] == [b"a", b"b", b"c", b"d"]
    assert [b.base_offset for b in view.batches(verify_crc=False)] == [b.base_offset for b in plain]
    assert view.__eq__(3) is NotImplemented and view != records[1:]
    with pytest.raises(TypeError, match="unhashable"):
        hash(view)
    # its own constructor checks the region as the plain one does
    for start, end in ((4, 2), (0, len(records) + 1), (-1, None)):
        with pytest.raises(DecodeError) as native:
            type(view)(records, start, end)
        with pytest.raises(DecodeError) as reference:
            RecordsView(records, start, end)
        assert str(native.value) == str(reference.value)
    assert bytes(type(view)(records, 3)) == records[3:]
    # a compiled class takes a plain view (or bytes) from the user and writes the same bytes
    written = PartitionData(partition_index=1, records=RecordsView(records)).encode(12)
    assert written == PartitionData(partition_index=1, records=records).encode(12)
    assert written == PurePartitionData(partition_index=1, records=records).encode(12)
