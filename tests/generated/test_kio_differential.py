"""Differential test against kio, a Kafka protocol library kwire shares no code with.

kio (PyPI ``kio``) generates one frozen dataclass per (message, version) from Kafka's own JSON
definitions and ships a serializer and a native parser. For every (message, version) that both
kio and kwire know, hypothesis draws kio instances and checks, per instance, that:

1. kio's bytes decode in kwire to the object built field by field from the kio instance
   (an independent conversion, so a value kwire misreads cannot hide behind a symmetric
   re-encode);
2. kwire re-encodes them to the identical bytes;
3. kwire's encoding of the independently built object is those bytes too, and kio parses
   it back to the very instance it started from.

kwire's classes come from ``generated/`` (message_defs), which defines every message kio models
(record-data schemas such as ControlRecordTypeSchema and EndTxnMarker included); the pairs are found
by walking kio's index, so a message added to message_defs joins the comparison by itself.

kio represents a few things its own way; the adaptation lives here, never in kwire:
- ``*Ms`` durations are ``timedelta`` (field ``throttle_time`` for ``throttle_time_ms``) and
  ``*TimeMs`` instants are tz-aware ``datetime``, ``None`` standing for -1;
- error codes are an ``ErrorCode`` enum, ints are range-checked ``int`` subclasses;
- the all-zero uuid is ``None`` (kio writes ``None`` as 16 zero bytes and reads them as
  ``None``), so drawn uuids are never zero and ``None`` stands for kwire's zero uuid;
- kio names ``KRaft`` fields ``k_raft_*``.

Where kio departs from Kafka (kept out of the draws, so they test kwire and not kio):
- unknown tagged fields: kio's reader raises ``KeyError('Unknown tagged field tag: N')``, while
  the readers Kafka generates keep them (MessageDataGenerator.generateClassReader emits
  ``default: this._unknownTaggedFields = _readable.readUnknownTaggedField(...)``), so kwire's
  ``unknown_tagged_fields`` cannot be compared here;
- int64 durations: Kafka takes any int64, but kio's reader fails beyond +-(2**63 // 1000) ms
  ("timedelta milliseconds overflow") and its writer rounds through a float
  (``round(total_seconds() * 1000)``), writing 9223372036854775 ms as ...776; draws stay where
  kio is exact.
"""
from __future__ import annotations

import dataclasses
import datetime
import io
import uuid
from functools import cache
from pkgutil import resolve_name
from types import NoneType, UnionType
from typing import Union, get_args, get_origin

import pytest

from kwire import generated
from tests.optional import later
from tests.packages import HealthCheck, given, schema_name_map, settings, st

entity_reader = later("kio.serial", "entity_reader")
entity_writer = later("kio.serial", "entity_writer")
classify_field = later("kio.serial._introspect", "classify_field")

EXAMPLES_PER_PAIR = 25
MAX_ITEMS = 3  # elements per drawn array: enough for order and counts, small enough for speed
MAX_TEXT = 8

UUID_ZERO = uuid.UUID(int=0)
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
ONE_MS = datetime.timedelta(milliseconds=1)
KIO_READER_MAX_MS = 2**63 // 1000


# --- which (message, version) pairs both sides know --------------------------------------------

def kio_entities() -> dict[tuple[str, int], type]:
    """Every kio top-level entity (requests, responses, headers, data records) by (name, version)."""
    found = {}
    for versions in schema_name_map.values():
        for version, paths in versions.items():
            for path in paths.values():
                cls = resolve_name(path)
                found[(cls.__name__, version)] = cls
    return found


def generated_versions() -> dict[str, range]:
    return {name: range(cls.VALID_VERSIONS[0], cls.VALID_VERSIONS[1] + 1)
            for name, cls in generated.MESSAGES.items()}


def known_to_kwire(name: str, version: int) -> bool:
    return version in GENERATED_VERSIONS.get(name, ())


KIO = kio_entities()
GENERATED_VERSIONS = generated_versions()
PAIRS = sorted((name, version) for (name, version) in KIO if known_to_kwire(name, version))


# --- kio instances ------------------------------------------------------------------------------

def exact_in_kio(delta: datetime.timedelta) -> bool:
    """kio writes a duration as round(total_seconds() * 1000): a float, exact only below 2**53 us."""
    return round(delta.total_seconds() * 1000) == delta // ONE_MS


def duration_strategy(kio_type: type, low_ms: int, high_ms: int) -> st.SearchStrategy:
    deltas = st.integers(low_ms, high_ms).map(lambda ms: datetime.timedelta(milliseconds=ms))
    return deltas.filter(exact_in_kio).map(kio_type.parse)


def primitive_strategy(py_type: type, kafka_type: str) -> st.SearchStrategy:
    if kafka_type == "timedelta_i32":
        return duration_strategy(py_type, -(2**31), 2**31 - 1)
    if kafka_type == "timedelta_i64":
        # Kafka allows any int64; kio's reader stops at +-(2**63 // 1000) ms although its
        # writer and its own hypothesis strategy go past it (see the module docstring).
        return duration_strategy(py_type, -KIO_READER_MAX_MS, KIO_READER_MAX_MS)
    if kafka_type == "uuid":
        return st.uuids().filter(lambda u: u != UUID_ZERO)  # kio's zero uuid is None
    if issubclass(py_type, str):
        return st.text(max_size=MAX_TEXT)
    if issubclass(py_type, bytes):  # bytes and kio's Records
        return st.binary(max_size=MAX_TEXT)
    # ints, floats, bools, ErrorCode and datetimes: kio registers range-aware strategies for
    # its own types.
    return st.from_type(py_type)


def type_strategy(annotation, kafka_type: str) -> st.SearchStrategy:
    """Follow kio's annotation: ``X | None`` may be null, ``tuple[X, ...]`` is an array."""
    args = get_args(annotation)
    if get_origin(annotation) in (UnionType, Union):
        (inner,) = [a for a in args if a is not NoneType]
        return st.none() | type_strategy(inner, kafka_type)
    if get_origin(annotation) is tuple:
        return st.lists(type_strategy(args[0], kafka_type), max_size=MAX_ITEMS).map(tuple)
    if dataclasses.is_dataclass(annotation):
        return st.deferred(lambda: entity_strategy(annotation))
    return primitive_strategy(annotation, kafka_type)


@cache
def entity_strategy(kio_cls: type) -> st.SearchStrategy:
    return st.builds(kio_cls, **{f.name: type_strategy(f.type, f.metadata.get("kafka_type", ""))
                                 for f in dataclasses.fields(kio_cls)})


def kio_encode(entity) -> bytes:
    out = io.BytesIO()
    entity_writer(type(entity))(out, entity)
    return out.getvalue()


def kio_decode(kio_cls: type, data: bytes):
    entity, size = entity_reader(kio_cls)(data, 0)
    assert size == len(data), f"kio read {size} of {len(data)} bytes"
    return entity


# --- kio instance -> kwire object, field by field -----------------------------------------------

def same_field(kio_name: str, kwire_attr: str) -> bool:
    """kio drops the Ms of durations/instants and splits KRaft; kwire keeps Kafka's names."""
    kio_key = kio_name.replace("_", "")
    return kio_key in (kwire_attr.replace("_", ""), kwire_attr.removesuffix("_ms").replace("_", ""))


def to_kwire(entity, kwire_cls: type, version: int):
    kio_fields = dataclasses.fields(entity)
    kwire_fields = [f for f in kwire_cls.FIELDS if f.present(version)]
    names = ([f.name for f in kio_fields], [f.attr for f in kwire_fields])
    assert len(kio_fields) == len(kwire_fields), f"{kwire_cls.NAME} v{version} fields differ: {names}"
    values = {}
    for kio_field, info in zip(kio_fields, kwire_fields, strict=True):
        assert same_field(kio_field.name, info.attr), f"{kwire_cls.NAME} v{version}: {names}"
        value = getattr(entity, kio_field.name)
        kafka_type = kio_field.metadata.get("kafka_type")
        if classify_field(kio_field).is_array:  # None is a null array, whatever the element type
            values[info.attr] = None if value is None else [
                to_kwire_value(v, kafka_type, info.struct, version) for v in value]
        else:
            values[info.attr] = to_kwire_value(value, kafka_type, info.struct, version)
    # kwire's constructors read None as "the default" for arrays and structs; a null is set after.
    obj = kwire_cls(**{attr: value for attr, value in values.items() if value is not None})
    for attr, value in values.items():
        if value is None:
            setattr(obj, attr, None)
    return obj


def to_kwire_value(value, kafka_type: str | None, struct: type | None, version: int):
    if value is None:  # kio's stand-ins for Kafka's sentinel values
        return {"uuid": UUID_ZERO, "datetime_i64": -1}.get(kafka_type)
    if struct is not None:
        return to_kwire(value, struct, version)
    if kafka_type in ("timedelta_i32", "timedelta_i64"):
        return value // ONE_MS
    if kafka_type == "datetime_i64":
        return (value - EPOCH) // ONE_MS
    if isinstance(value, bool):
        return value
    if isinstance(value, int):  # kio's int subclasses and ErrorCode
        return int(value)
    if isinstance(value, bytes):
        return bytes(value)
    if isinstance(value, str):
        return str(value)
    return value  # float, uuid


# --- the differential check ---------------------------------------------------------------------

def check_agreement(entity, kwire_cls: type, version: int) -> None:
    kio_bytes = kio_encode(entity)
    expected = to_kwire(entity, kwire_cls, version)

    decoded = kwire_cls.decode(kio_bytes, version)
    assert decoded == expected, "kwire read kio's bytes as different values"
    assert decoded.encode(version) == kio_bytes, "kwire re-encodes kio's bytes differently"

    kwire_bytes = expected.encode(version)
    assert kwire_bytes == kio_bytes, "kwire encodes the kio values differently"
    assert kio_decode(type(entity), kwire_bytes) == entity, "kio reads kwire's bytes differently"


@pytest.mark.parametrize(("name", "version"), PAIRS, ids=[f"{n}-v{v}" for n, v in PAIRS])
def test_kio_and_kwire_agree(name: str, version: int) -> None:
    kio_cls = KIO[(name, version)]
    kwire_cls = generated.MESSAGES[name]

    @settings(max_examples=EXAMPLES_PER_PAIR, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(entity_strategy(kio_cls))
    def agree(entity) -> None:
        check_agreement(entity, kwire_cls, version)

    agree()


# --- what is not compared, and why -------------------------------------------------------------

def test_hundreds_of_pairs_are_compared() -> None:
    assert len(PAIRS) >= 600
    # every API kio models is shipped, each in every version kio has
    kio_apis = {cls.__api_key__ for cls in KIO.values()
                if getattr(cls, "__type__", None) is not None and cls.__type__.name in ("request", "response")}
    shipped_apis = {cls.API_KEY for cls in generated.MESSAGES.values() if getattr(cls, "API_KEY", None) is not None}
    assert kio_apis <= shipped_apis, sorted(kio_apis - shipped_apis)


def version_list(pairs: list[tuple[str, int]]) -> list[str]:
    by_name: dict[str, list[int]] = {}
    for name, version in pairs:
        by_name.setdefault(name, []).append(version)
    return [f"{name} v{','.join(map(str, sorted(vs)))}" for name, vs in sorted(by_name.items())]


def test_every_kio_pair_is_compared() -> None:
    """kwire defines every message kio models, in every version kio has: a narrower kwire range (an
    older upstream definition) or a message missing from message_defs fails here."""
    missing = [key for key in KIO if not known_to_kwire(*key)]
    assert version_list(missing) == []


def test_kwire_messages_kio_lacks() -> None:
    """The other direction, for the record: kwire's versions and messages kio does not model
    (metadata records and group/transaction state have no kio entity; kio may lag new versions)."""
    kio_names = {name for name, _ in KIO}
    kwire = {(name, v) for name, vs in GENERATED_VERSIONS.items() for v in vs}
    unmodelled = sorted(key for key in kwire if key not in KIO)
    outside = [(n, v) for n, v in unmodelled if n in kio_names]
    for name, version in outside:
        kio_versions = [v for n, v in KIO if n == name]
        assert not min(kio_versions) < version < max(kio_versions), f"kio skips {name} v{version}"
    print(f"\n{len(outside)} kwire pairs outside kio's version range:", *version_list(outside), sep="\n  ")
    absent = sorted({n for n, _ in unmodelled if n not in kio_names})
    print(f"{len(absent)} kwire messages kio has no entity for:", *absent, sep="\n  ")
