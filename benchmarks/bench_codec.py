"""Encode/decode throughput of kwire's generated codecs next to kio, kafka-python 3 and construct.

    python benchmarks/bench_codec.py [--quick] [--runs N] [--json OUT] [--chart PNG] [--check]

Each workload is built once with kwire and encoded; every implementation then decodes those
bytes into its own objects, and those objects are its encode input. Before anything is timed,
each implementation must re-encode its objects to exactly the same bytes: any that does not is
reported (and flagged in the table) rather than silently compared.

Timing: for each (workload, implementation, operation) the number of calls per run is
calibrated so one run lasts about --target seconds, then --runs runs are timed with
time.perf_counter (garbage collector paused during a run, as timeit does); the runs of the
implementations are interleaved round-robin so they share the machine's load. The table gives
the median ops/s and MB/s (wire bytes per op x ops/s), the min-max spread over the runs, and
speed ratios to kafka-python and to kio (median of the per-round ratios); the JSON keeps every run.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import importlib.machinery
import importlib.metadata
import io
import json
import math
import os
import platform
import statistics
import sys
import time
import traceback
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Benchmark the checkout this script lives in, even when another kwire is installed.
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from kwire.wire import primitives as wire  # noqa: E402

MESSAGE_DEFS = REPO / "message_defs"
IMPLEMENTATIONS = ("kwire", "kwire (mypyc)", "kio", "kafka-python", "construct")
COMPILED = "kwire (mypyc)"


# --- what a benchmark cell runs ---------------------------------------------------------------

@dataclass
class Codec:
    """One implementation's two timed operations on one workload (both take no argument)."""

    encode: Callable[[], object]
    decode: Callable[[], object]
    # Turns encode()'s result into the canonical form compared with the workload's bytes.
    encoded_form: Callable[[object], object] = bytes


@dataclass
class Workload:
    key: str
    title: str
    expected: object             # the canonical encoding: bytes, or a list of framed record values
    wire_bytes: int
    codecs: dict[str, Codec] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)      # implementation -> why
    mismatched: dict[str, str] = field(default_factory=dict)   # implementation -> what differs


# --- the compiled build ------------------------------------------------------------------------

@cache
def compiled_package():
    """The mypyc build the tests use (tests/generated/compiled_build.py), built on first use (minutes)."""
    from kwire.generator.native.build import CompileUnavailable
    from tests.generated.compiled_build import CACHE
    from tests.generated.compiled_build import compiled_package as build

    if not (CACHE.is_dir() and any(CACHE.iterdir())):
        print("building the mypyc-compiled subset of generated/ (a few minutes, once) ...", file=sys.stderr)
    try:
        return build(), ""
    except CompileUnavailable as exc:
        return None, str(exc)


def compiled_twin(cls: type) -> type:
    """The class of the compiled build that matches a generated/ class."""
    package, why = compiled_package()
    if package is None:
        raise ImportError(f"no compiled build: {why}")
    module = importlib.import_module(cls.__module__.replace("kwire.generated.", f"{package.__name__}.", 1))
    twin = getattr(module, cls.__name__)
    if not (module.__file__ or "").endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
        raise ImportError(f"{module.__name__} is not compiled in the build")
    return twin


# --- single-message adapters: each decodes the kwire bytes and encodes what it decoded ---------

def kwire_codec(cls, version: int, data: bytes) -> Codec:
    obj = cls.decode(data, version)
    return Codec(encode=partial(obj.encode, version), decode=partial(cls.decode, data, version))


def kio_codec(module: str, name: str, data: bytes) -> Codec:
    from kio.serial import entity_reader, entity_writer

    entity = getattr(importlib.import_module(module), name)
    read, write = entity_reader(entity), entity_writer(entity)
    obj, used = read(data, 0)
    if used != len(data):
        raise ValueError(f"kio read {used} of {len(data)} bytes")

    def encode() -> bytes:
        out = io.BytesIO()
        write(out, obj)
        return out.getvalue()

    return Codec(encode=encode, decode=partial(read, data, 0))


def kafka_python_codec(module: str, name: str, version: int, data: bytes) -> Codec:
    cls = getattr(importlib.import_module(module), name)
    obj = cls.decode(data, version=version)
    # A decoded kafka-python object remembers its version; encode(version=...) on it trips
    # over the missing _header slot in 3.0.12, so it is encoded at its own version.
    return Codec(encode=obj.encode, decode=partial(cls.decode, data, version=version))


@cache
def reference_codec() -> tuple[object | None, str]:
    """tests.generator.reference_codec and '', or None and why it is not importable (it is written separately)."""
    try:
        return importlib.import_module("tests.generator.reference_codec"), ""
    except Exception as exc:  # any failure to import means "skip construct", with the reason
        return None, f"{type(exc).__name__}: {exc}"


def require_reference_codec():
    ref, error = reference_codec()
    if ref is None:
        raise ImportError(f"tests.generator.reference_codec is not importable ({error})")
    return ref


def load_definition(name: str):
    from kwire.generator.definitions.loader import load_file

    return load_file(MESSAGE_DEFS / f"{name}.json")


def construct_codec(name: str, version: int, data: bytes) -> Codec:
    ref = require_reference_codec()
    message = load_definition(name)
    plain = ref.reference_decode(message, version, data)
    return Codec(encode=partial(ref.reference_encode, message, version, plain),
                 decode=partial(ref.reference_decode, message, version, data))


@dataclass
class MessageSpec:
    """Where each implementation keeps one message type; all three name its class as Kafka does."""

    cls: type                  # kwire's generated class
    version: int
    kafka_python_module: str   # kafka-python groups its messages by area (metadata, consumer, ...)

    @property
    def kio(self) -> tuple[str, str]:
        """kio's module and class: kio.schema.<api>.v<version>.<request|response>, named as kwire's module."""
        api, kind = self.cls.__module__.rpartition(".")[2].rsplit("_", 1)
        return f"kio.schema.{api}.v{self.version}.{kind}", self.cls.NAME

    @property
    def kafka_python(self) -> tuple[str, str]:
        return self.kafka_python_module, self.cls.NAME


def message_codecs(spec: MessageSpec, data: bytes) -> dict[str, Callable[[], Codec]]:
    return {
        "kwire": partial(kwire_codec, spec.cls, spec.version, data),
        COMPILED: lambda: kwire_codec(compiled_twin(spec.cls), spec.version, data),
        "kio": partial(kio_codec, *spec.kio, data),
        "kafka-python": partial(kafka_python_codec, *spec.kafka_python, spec.version, data),
        "construct": partial(construct_codec, spec.cls.NAME, spec.version, data),
    }


# --- workloads -------------------------------------------------------------------------------

def api_versions_workload():
    from kwire.generated.api_versions_response import (
        ApiVersion,
        ApiVersionsResponse,
        FinalizedFeatureKey,
        SupportedFeatureKey,
    )

    # Before v4 a broker leaves out features whose minimum is 0, so every minimum here is >= 1.
    features = [("metadata.version", 1, 21), ("kraft.version", 1, 1), ("transaction.version", 1, 2),
                ("group.version", 1, 1)]
    message = ApiVersionsResponse(
        api_keys=[ApiVersion(api_key=k, min_version=0, max_version=3 + k % 14) for k in range(60)],
        supported_features=[SupportedFeatureKey(name=n, min_version=lo, max_version=hi)
                            for n, lo, hi in features],
        finalized_features_epoch=1234,
        finalized_features=[FinalizedFeatureKey(name=n, max_version_level=hi, min_version_level=hi)
                            for n, _, hi in features],
    )
    spec = MessageSpec(ApiVersionsResponse, 3, "kafka.protocol.metadata")
    return ("api_versions_v3", "ApiVersionsResponse v3 (60 ApiKeys, feature tags)", spec, message)


def metadata_workload():
    from kwire.generated.metadata_response import (
        MetadataResponse,
        MetadataResponseBroker,
        MetadataResponsePartition,
        MetadataResponseTopic,
    )

    brokers = 5

    def partition(p: int) -> MetadataResponsePartition:
        replicas = [(p + i) % brokers for i in range(3)]
        return MetadataResponsePartition(partition_index=p, leader_id=replicas[0], leader_epoch=7,
                                         replica_nodes=replicas, isr_nodes=list(replicas))

    message = MetadataResponse(
        brokers=[MetadataResponseBroker(node_id=b, host=f"broker-{b}.kafka.example.com", port=9092,
                                        rack=f"rack-{b % 3}") for b in range(brokers)],
        cluster_id="Yk1ZQkFuS3dpcmVCZW5jaA",
        controller_id=1,
        topics=[MetadataResponseTopic(name=f"orders.events.{t:03d}",
                                      topic_id=uuid.UUID(int=(t + 1) * 0x9E3779B97F4A7C15),
                                      partitions=[partition(p) for p in range(10)]) for t in range(50)],
    )
    spec = MessageSpec(MetadataResponse, 12, "kafka.protocol.metadata")
    return ("metadata_v12", "MetadataResponse v12 (50 topics x 10 partitions)", spec, message)


def record_batch(base_offset: int, count: int) -> bytes:
    """A v2 record batch written by kafka-python's builder (uncompressed, CRC-32C filled in)."""
    from kafka.record.default_records import DefaultRecordBatchBuilder

    builder = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=False,
                                        producer_id=-1, producer_epoch=-1, base_sequence=-1,
                                        batch_size=1 << 20)
    for i in range(count):
        builder.append(i, timestamp=1_700_000_000_000 + i, key=f"user-{base_offset + i}".encode(),
                       value=(b"%08d" % (base_offset + i)) * 12, headers=[])
    batch = bytearray(builder.build())
    # The builder numbers from 0: move the batch to its real base offset (outside the CRC'd part).
    batch[0:8] = base_offset.to_bytes(8, "big")
    return bytes(batch)


def fetch_workload():
    from kwire.generated.fetch_response import FetchableTopicResponse, FetchResponse, PartitionData

    def partition(p: int) -> PartitionData:
        base = 1000 * p
        records = record_batch(base, 10) + record_batch(base + 10, 10)
        return PartitionData(partition_index=p, high_watermark=base + 20, last_stable_offset=base + 20,
                             log_start_offset=0, records=records)

    message = FetchResponse(session_id=42, responses=[
        FetchableTopicResponse(topic=f"clicks.{t}", partitions=[partition(p) for p in range(4)])
        for t in range(2)])
    spec = MessageSpec(FetchResponse, 12, "kafka.protocol.consumer")
    return ("fetch_v12", "FetchResponse v12 (2 topics x 4 partitions x 2 record batches)", spec, message)


def offset_commit_workload():
    from kwire.generated.offset_commit_request import (
        OffsetCommitRequest,
        OffsetCommitRequestPartition,
        OffsetCommitRequestTopic,
    )

    # A consumer of 20 topics x 50 partitions committing its position: generation (or member
    # epoch) and member id, then per partition the offset, its leader epoch and empty metadata.
    message = OffsetCommitRequest(
        group_id="orders-billing", generation_id_or_member_epoch=17,
        member_id="consumer-orders-billing-1-3f1c9a52-6b0e-4d3a-9c1f-5a1e2b7c8d90",
        topics=[OffsetCommitRequestTopic(name=f"orders.events.{t:03d}", partitions=[
            OffsetCommitRequestPartition(partition_index=p, committed_offset=1_000_000 + 7919 * p + t,
                                         committed_leader_epoch=5, committed_metadata="")
            for p in range(50)]) for t in range(20)])
    spec = MessageSpec(OffsetCommitRequest, 9, "kafka.protocol.consumer")
    return ("offset_commit_v9", "OffsetCommitRequest v9 (20 topics x 50 partitions)", spec, message)


def offset_fetch_workload():
    from kwire.generated.offset_fetch_response import (
        OffsetFetchResponse,
        OffsetFetchResponseGroup,
        OffsetFetchResponsePartitions,
        OffsetFetchResponseTopics,
    )

    # The reply to a consumer joining a group of 20 topics x 50 partitions (v8: grouped by group id).
    message = OffsetFetchResponse(groups=[OffsetFetchResponseGroup(group_id="orders-billing", topics=[
        OffsetFetchResponseTopics(name=f"orders.events.{t:03d}", partitions=[
            OffsetFetchResponsePartitions(partition_index=p, committed_offset=1_000_000 + 7919 * p + t,
                                          committed_leader_epoch=5, metadata="")
            for p in range(50)]) for t in range(20)])])
    spec = MessageSpec(OffsetFetchResponse, 8, "kafka.protocol.consumer")
    return ("offset_fetch_v8", "OffsetFetchResponse v8 (1 group, 20 topics x 50 partitions)", spec, message)


def single_message_workload(build) -> Workload:
    key, title, spec, message = build()
    data = message.encode(spec.version)
    workload = Workload(key, title, data, len(data))
    add_codecs(workload, message_codecs(spec, data))
    return workload


# --- the metadata-record stream ------------------------------------------------------------------

METADATA_FRAME_VERSION = 1


def frame_header(api_key: int, version: int) -> bytes:
    """What precedes every KRaft metadata record value: frame version, apiKey, version (uvarints)."""
    return wire.uvarint(METADATA_FRAME_VERSION) + wire.uvarint(api_key) + wire.uvarint(version)


def read_frame_header(value: bytes) -> tuple[int, int, int]:
    frame_version, pos = wire.read_uvarint(value, 0, len(value))
    if frame_version != METADATA_FRAME_VERSION:
        raise ValueError(f"unknown metadata frame version {frame_version}")
    api_key, pos = wire.read_uvarint(value, pos, len(value))
    version, pos = wire.read_uvarint(value, pos, len(value))
    return api_key, version, pos


def metadata_record_classes() -> dict[int, type]:
    from kwire.wire.index import load

    index = load()  # the KRaft records (tiered storage's have apiKeys of their own)
    return {api_key: index.message_class(name) for api_key, name in index.metadata_records.items()}


def metadata_stream_records() -> list[tuple[object, int]]:
    """(record, version) pairs shaped like a small cluster's snapshot, as Kafka 3.9 writes them."""
    from kwire.generated.feature_level_record import FeatureLevelRecord
    from kwire.generated.partition_record import PartitionRecord
    from kwire.generated.register_broker_record import BrokerEndpoint, BrokerFeature, RegisterBrokerRecord
    from kwire.generated.topic_record import TopicRecord

    brokers = 3
    log_dirs = [uuid.UUID(int=0xA11CE + b) for b in range(brokers)]
    records: list[tuple[object, int]] = [
        (FeatureLevelRecord(name="metadata.version", feature_level=21), 0),
        (FeatureLevelRecord(name="kraft.version", feature_level=1), 0),
    ]
    for b in range(brokers):
        records.append((RegisterBrokerRecord(
            broker_id=b, incarnation_id=uuid.UUID(int=0xB0B0 + b), broker_epoch=100 + b,
            end_points=[BrokerEndpoint(name="PLAINTEXT", host=f"broker-{b}.kafka.example.com", port=9092,
                                       security_protocol=0)],
            features=[BrokerFeature(name="metadata.version", min_supported_version=1, max_supported_version=21),
                      BrokerFeature(name="kraft.version", min_supported_version=0, max_supported_version=1)],
            rack=f"rack-{b}", fenced=False, log_dirs=[log_dirs[b]]), 3))
    for t in range(50):
        topic_id = uuid.UUID(int=(t + 1) * 0x9E3779B97F4A7C15)
        records.append((TopicRecord(name=f"orders.events.{t:03d}", topic_id=topic_id), 0))
        for p in range(10):
            replicas = [(p + i) % brokers for i in range(brokers)]
            records.append((PartitionRecord(
                partition_id=p, topic_id=topic_id, replicas=replicas, isr=list(replicas), leader=replicas[0],
                leader_epoch=2, partition_epoch=3, directories=[log_dirs[r] for r in replicas]), 1))
    return records


def stream_codec(values: list[bytes], encode_body: Callable, decode_body: Callable) -> Codec:
    """Frames each record value the way the metadata log does; decode dispatches on apiKey.

    ``decode_body(api_key, version, value, body_start)`` and ``encode_body(api_key, version, obj)``
    are the implementation's; the records it encodes are the ones it decoded from ``values``.
    """
    records = []
    for value in values:
        api_key, version, pos = read_frame_header(value)
        records.append((api_key, version, decode_body(api_key, version, value, pos)))
    headers = {(k, v): frame_header(k, v) for k, v, _ in records}

    def encode() -> list[bytes]:
        return [headers[k, v] + encode_body(k, v, obj) for k, v, obj in records]

    def decode() -> list[object]:
        out = []
        for value in values:
            api_key, version, pos = read_frame_header(value)
            out.append(decode_body(api_key, version, value, pos))
        return out

    return Codec(encode=encode, decode=decode, encoded_form=list)


def kwire_stream_codec(values: list[bytes], compiled: bool = False) -> Codec:
    classes = metadata_record_classes()
    if compiled:  # the record types in the stream (the compiled build has those, not every record)
        used = {read_frame_header(value)[0] for value in values}
        classes = {key: compiled_twin(cls) for key, cls in classes.items() if key in used}

    def decode_body(api_key: int, version: int, value: bytes, pos: int):
        cls = classes[api_key]
        obj, end = cls.read(value, pos, version)
        if end != len(value):
            raise ValueError(f"{len(value) - end} bytes left after {cls.NAME}")
        return obj

    return stream_codec(values, lambda k, v, obj: obj.encode(v), decode_body)


def construct_stream_codec(values: list[bytes]) -> Codec:
    ref = require_reference_codec()
    classes = metadata_record_classes()
    definitions = {k: load_definition(cls.NAME) for k, cls in classes.items()}

    def decode_body(api_key: int, version: int, value: bytes, pos: int):
        return ref.reference_decode(definitions[api_key], version, value[pos:])

    return stream_codec(values, lambda k, v, plain: ref.reference_encode(definitions[k], v, plain), decode_body)


def metadata_stream_workload() -> Workload:
    records = metadata_stream_records()
    values = [frame_header(type(obj).API_KEY, v) + obj.encode(v) for obj, v in records]
    counts: dict[str, int] = {}
    for obj, _ in records:
        counts[type(obj).NAME] = counts.get(type(obj).NAME, 0) + 1
    title = "metadata record stream (" + ", ".join(f"{n} {name}" for name, n in counts.items()) + ")"
    workload = Workload("metadata_records", title, values, sum(map(len, values)))
    add_codecs(workload, {"kwire": partial(kwire_stream_codec, values),
                          COMPILED: partial(kwire_stream_codec, values, compiled=True),
                          "construct": partial(construct_stream_codec, values)})
    workload.skipped["kio"] = "kio 0.6 has no FeatureLevel/Topic/Partition/RegisterBroker record entities"
    workload.skipped["kafka-python"] = "kafka-python 3 has no KRaft metadata record definitions"
    return workload


# --- setup and agreement check -------------------------------------------------------------------

IMPLEMENTATIONS_SKIPPED: dict[str, str] = {}  # implementation -> why, for every workload


def add_codecs(workload: Workload, factories: dict[str, Callable[[], Codec]]) -> None:
    """Set up each implementation; one that cannot be set up is skipped with the reason."""
    for name, factory in factories.items():
        if name in IMPLEMENTATIONS_SKIPPED:
            workload.skipped[name] = IMPLEMENTATIONS_SKIPPED[name]
            continue
        try:
            codec = factory()
        except Exception as exc:  # a peer that fails to set up is reported, not fatal
            workload.skipped[name] = f"setup failed: {type(exc).__name__}: {exc}"
            continue
        workload.codecs[name] = codec
        problem = agreement_problem(codec, workload.expected)
        if problem:
            workload.mismatched[name] = problem


def agreement_problem(codec: Codec, expected: object) -> str:
    """Why this implementation's encoding differs from the workload's bytes ('' if it does not)."""
    try:
        got = codec.encoded_form(codec.encode())
        codec.decode()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    if got == expected:
        return ""
    if isinstance(expected, list):
        if len(got) != len(expected):
            return f"{len(got)} record values instead of {len(expected)}"
        differing = [i for i, (a, b) in enumerate(zip(got, expected, strict=True)) if a != b]
        return f"{len(differing)} of {len(expected)} record values differ (first: #{differing[0]})"
    first = next((i for i, (a, b) in enumerate(zip(got, expected, strict=False)) if a != b),
                 min(len(got), len(expected)))
    return f"{len(got)} bytes vs {len(expected)}, first difference at offset {first}"


WORKLOAD_BUILDERS = {
    "api_versions_v3": partial(single_message_workload, api_versions_workload),
    "metadata_v12": partial(single_message_workload, metadata_workload),
    "fetch_v12": partial(single_message_workload, fetch_workload),
    "offset_commit_v9": partial(single_message_workload, offset_commit_workload),
    "offset_fetch_v8": partial(single_message_workload, offset_fetch_workload),
    "metadata_records": metadata_stream_workload,
}


# --- timing --------------------------------------------------------------------------------------

def time_calls(fn: Callable[[], object], calls: int) -> float:
    loop = range(calls)
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in loop:
            fn()
        return time.perf_counter() - start
    finally:
        if gc_was_on:
            gc.enable()


def calibrate(fn: Callable[[], object], target: float) -> int:
    """Calls per run so that one run lasts about ``target`` seconds."""
    fn()  # warm caches (compiled structs, class tables)
    calls = 1
    while True:
        elapsed = time_calls(fn, calls)
        if elapsed >= target / 5 or calls >= 1 << 24:
            return max(1, round(calls * target / max(elapsed, 1e-9)))
        calls *= 4 if elapsed < target / 50 else 2


@dataclass
class Cell:
    workload: str
    implementation: str
    operation: str
    calls_per_run: int
    run_ops: list[float]       # ops/s of each run
    wire_bytes: int
    error: str = ""

    @property
    def median(self) -> float:
        return statistics.median(self.run_ops) if self.run_ops else math.nan

    @property
    def mb_per_s(self) -> float:
        return self.median * self.wire_bytes / 1e6

    def quartiles(self) -> tuple[float, float]:
        if len(self.run_ops) < 2:
            return self.median, self.median
        q = statistics.quantiles(self.run_ops, n=4, method="inclusive")
        return q[0], q[2]


def measure(workload: Workload, operation: str, runs: int, target: float) -> dict[str, Cell]:
    """Time one operation of every implementation, their runs interleaved round-robin.

    The machine is shared, so load comes and goes; interleaving makes each implementation see
    the same conditions, which keeps the ratios between them steadier than the absolute numbers.
    """
    cells, fns = {}, {}
    for name, codec in workload.codecs.items():
        cell = cells[name] = Cell(workload.key, name, operation, 0, [], workload.wire_bytes)
        fns[name] = getattr(codec, operation)
        try:
            cell.calls_per_run = calibrate(fns[name], target)
        except Exception as exc:  # a codec that breaks is reported, the others go on
            cell.error = f"{type(exc).__name__}: {exc}"
    for _ in range(runs):
        for name, cell in cells.items():
            if cell.error:
                continue
            try:
                cell.run_ops.append(cell.calls_per_run / time_calls(fns[name], cell.calls_per_run))
            except Exception as exc:
                cell.error = f"{type(exc).__name__}: {exc}"
                cell.run_ops = []
    return cells


# --- reporting -----------------------------------------------------------------------------------

def human(n: float) -> str:
    if math.isnan(n):
        return "-"
    for unit, scale in (("M", 1e6), ("k", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g}{unit}"
    return f"{n:.3g}"


def speed_ratio(mine: Cell | None, theirs: Cell | None) -> float | None:
    """How many times faster ``mine`` is: the median of the per-round ratios.

    Runs of one operation are interleaved round-robin, so pairing them round by round cancels
    most of the load the other users of the machine put on it.
    """
    if not (mine and theirs and mine.run_ops and theirs.run_ops):
        return None
    if len(mine.run_ops) != len(theirs.run_ops):
        return mine.median / theirs.median
    return statistics.median(a / b for a, b in zip(mine.run_ops, theirs.run_ops, strict=True))


def ratio(cells: dict[tuple, Cell], cell: Cell, peer: str) -> str:
    r = speed_ratio(cell, cells.get((cell.workload, peer, cell.operation)))
    return "-" if r is None else f"{r:.2f}x"


def results_table(workloads: list[Workload], cells: dict[tuple, Cell]) -> str:
    lines = ["| workload | op | implementation | ops/s (median) | spread min-max | MB/s | vs kafka-python | vs kio |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    for w in workloads:
        for op in ("encode", "decode"):
            for name in IMPLEMENTATIONS:
                cell = cells.get((w.key, name, op))
                if cell is None:
                    continue
                mark = " (bytes differ!)" if name in w.mismatched else ""
                if cell.error:
                    lines.append(f"| {w.key} | {op} | {name}{mark} | error: {cell.error} | | | | |")
                    continue
                lo, hi = min(cell.run_ops), max(cell.run_ops)
                lines.append(f"| {w.key} | {op} | {name}{mark} | {human(cell.median)} | {human(lo)}-{human(hi)} "
                             f"| {cell.mb_per_s:.2f} | {ratio(cells, cell, 'kafka-python')} "
                             f"| {ratio(cells, cell, 'kio')} |")
    return "\n".join(lines)


# The targets: (implementation, workload, op, peer, minimum ratio); None = only reported.
TARGETS = [("kwire", w, op, "kafka-python", 2.0) for w in ("api_versions_v3", "metadata_v12")
           for op in ("encode", "decode")]
TARGETS += [("kwire", w, "encode", "kio", 1.0) for w in ("api_versions_v3", "metadata_v12", "fetch_v12")]
TARGETS += [("kwire", w, "decode", "kio", None) for w in ("api_versions_v3", "metadata_v12", "fetch_v12")]
# Issue 38 §1: compiled decode at least 1.6x kio's native (Rust) decoder on each of the three.
TARGETS += [(COMPILED, w, "decode", "kio", 1.6) for w in ("api_versions_v3", "metadata_v12", "fetch_v12")]
TARGETS += [("kwire", "fetch_v12", "decode", "kafka-python", 2.0)]
# Issue 18: the offset workloads, reported against both peers.
TARGETS += [(impl, w, op, peer, None) for w in ("offset_commit_v9", "offset_fetch_v8") for impl in ("kwire", COMPILED)
            for op in ("encode", "decode") for peer in ("kafka-python", "kio")]
TARGETS += [(COMPILED, w, op, "kwire", None) for w in WORKLOAD_BUILDERS for op in ("encode", "decode")]


def target_lines(cells: dict[tuple, Cell]) -> list[dict]:
    rows = []
    for impl, w, op, peer, minimum in TARGETS:
        r = speed_ratio(cells.get((w, impl, op)), cells.get((w, peer, op)))
        if r is None:
            status = "not measured"
        else:
            status = "reported" if minimum is None else ("met" if r >= minimum else "MISSED")
        rows.append({"implementation": impl, "workload": w, "operation": op, "peer": peer, "minimum": minimum,
                     "ratio": r, "status": status})
    return rows


def package_version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def machine_info() -> dict:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cpu_count": os.cpu_count(), "python": platform.python_version(),
            "implementation": platform.python_implementation(), "platform": platform.platform(),
            "packages": {d: package_version(d) for d in ("kio", "kafka-python", "construct")}}


def draw_chart(path: Path, workloads: list[Workload], cells: dict[tuple, Cell], subtitle: str) -> str:
    """A grouped bar chart of median ops/s (log scale), one panel per operation; '' or why not."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        return f"no chart: matplotlib is not installed ({exc})"
    colours = {"kwire": "#2b7bba", COMPILED: "#08306b", "kio": "#e08214", "kafka-python": "#4daf4a",
               "construct": "#999999"}
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2), sharey=True)
    width = 0.8 / len(IMPLEMENTATIONS)
    for ax, op in zip(axes, ("encode", "decode"), strict=True):
        for i, name in enumerate(IMPLEMENTATIONS):
            xs, heights, low, high = [], [], [], []
            for x, w in enumerate(workloads):
                cell = cells.get((w.key, name, op))
                if cell and cell.run_ops:
                    xs.append(x + (i - (len(IMPLEMENTATIONS) - 1) / 2) * width)
                    heights.append(cell.median)
                    low.append(cell.median - min(cell.run_ops))
                    high.append(max(cell.run_ops) - cell.median)
            ax.bar(xs, heights, width, yerr=[low, high], capsize=2, label=name, color=colours[name])
            for x, w in enumerate(workloads):
                if (w.key, name, op) not in cells:
                    ax.text(x + (i - (len(IMPLEMENTATIONS) - 1) / 2) * width, 0.02, "n/a", rotation=90,
                            ha="center", va="bottom", fontsize=7, transform=ax.get_xaxis_transform())
        ax.set_yscale("log")
        ax.set_title(op)
        ax.set_xticks(range(len(workloads)), [w.key for w in workloads], rotation=15)
        ax.grid(axis="y", which="both", alpha=0.3)
    axes[0].set_ylabel("operations per second (median, log scale; bars: min-max)")
    axes[1].legend()
    fig.suptitle(f"kwire codec benchmark - {subtitle}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return ""


# --- main ----------------------------------------------------------------------------------------

def build_workloads(selected: list[str]) -> list[Workload]:
    workloads = []
    for key in selected:
        try:
            workloads.append(WORKLOAD_BUILDERS[key]())
        except Exception:  # kwire itself could not build this workload: say so, keep the others
            print(f"!! workload {key} could not be built with kwire:\n{traceback.format_exc()}", file=sys.stderr)
    return workloads


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short runs (about 30 s in all)")
    parser.add_argument("--runs", type=int, help="timed runs per cell (default 7, quick 5)")
    parser.add_argument("--target", type=float, help="seconds per run (default 0.25, quick 0.04)")
    parser.add_argument("--workload", action="append", choices=list(WORKLOAD_BUILDERS),
                        help="only this workload (repeatable)")
    parser.add_argument("--check", action="store_true",
                        help="only build the workloads and check every implementation agrees; no timing")
    parser.add_argument("--no-compiled", action="store_true",
                        help="leave out the mypyc-compiled build (otherwise built once, in minutes, if mypy "
                             "and a C compiler are present)")
    parser.add_argument("--op", choices=("encode", "decode"), help="time only this operation")
    parser.add_argument("--impl", action="append", choices=IMPLEMENTATIONS,
                        help="time only this implementation (repeatable; the others are not set up)")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--chart", type=Path, help="draw a bar chart to this PNG")
    args = parser.parse_args(argv)
    runs = args.runs or (5 if args.quick else 7)
    target = args.target or (0.04 if args.quick else 0.25)

    if reference_codec()[0] is None:
        print(f"note: construct reference skipped: tests.generator.reference_codec is not importable "
              f"({reference_codec()[1]})")
    selected = args.workload or list(WORKLOAD_BUILDERS)
    import kwire.generated.api_versions_response as probe
    if not (probe.__file__ or "").endswith(".py"):
        print("note: generated/ itself is compiled (make compile): the 'kwire' column is not pure Python; "
              "`make clean` or `kwire generate` after a change removes the extensions")
    if args.no_compiled:
        IMPLEMENTATIONS_SKIPPED[COMPILED] = "left out (--no-compiled)"
    for name in IMPLEMENTATIONS:
        if args.impl and name not in args.impl:
            IMPLEMENTATIONS_SKIPPED.setdefault(name, "not asked for (--impl)")
    operations = (args.op,) if args.op else ("encode", "decode")
    workloads = build_workloads(selected)

    print("Workloads (wire bytes per op):")
    for w in workloads:
        print(f"  {w.key}: {w.title}, {w.wire_bytes} bytes")
        for name, why in w.skipped.items():
            print(f"    skipped {name}: {why}")
        for name, why in w.mismatched.items():
            print(f"    !! {name} does not reproduce the bytes: {why}")
    if args.check:
        bad = [f"{w.key}/{n}" for w in workloads for n in w.mismatched]
        print("agreement: " + ("every implementation set up reproduces the bytes" if not bad
                               else "MISMATCH " + ", ".join(bad)))
        return 1 if bad or len(workloads) < len(selected) else 0

    sys.stdout.flush()  # the per-cell progress goes to stderr
    cells: dict[tuple, Cell] = {}
    started = time.perf_counter()
    for w in workloads:
        for op in operations:
            for name, cell in measure(w, op, runs, target).items():
                cells[w.key, name, op] = cell
                note = f"error {cell.error}" if cell.error else f"{human(cell.median)} ops/s"
                print(f"  {w.key:17} {op} {name:13}: {note}", file=sys.stderr)
    elapsed = time.perf_counter() - started

    machine = machine_info()
    print()
    print(f"{machine['cpu']} ({machine['cpu_count']} cpus), {machine['implementation']} {machine['python']}; "
          f"{runs} runs of ~{target}s per cell, {elapsed:.0f}s timing")
    print(results_table(workloads, cells))
    print("\nTargets for kwire (median of per-round speed ratios):")
    targets = target_lines(cells)
    for t in targets:
        if t["ratio"] is None and (args.op or args.impl):
            continue  # left out on purpose
        shown = "-" if t["ratio"] is None else f"{t['ratio']:.2f}x"
        need = "" if t["minimum"] is None else f" (target >= {t['minimum']:g}x)"
        print(f"  {t['implementation']} {t['workload']} {t['operation']} vs {t['peer']}: {shown}{need} {t['status']}")

    if args.json:
        args.json.write_text(json.dumps({
            "machine": machine, "runs": runs, "target_seconds_per_run": target, "quick": args.quick,
            "workloads": [{"key": w.key, "title": w.title, "wire_bytes": w.wire_bytes, "skipped": w.skipped,
                           "bytes_differ": w.mismatched} for w in workloads],
            "results": [{"workload": c.workload, "implementation": c.implementation, "operation": c.operation,
                         "ops_per_s_median": c.median if c.run_ops else None,
                         "ops_per_s_min": min(c.run_ops, default=None), "ops_per_s_max": max(c.run_ops, default=None),
                         "ops_per_s_iqr": list(c.quartiles()) if c.run_ops else None,
                         "mb_per_s_median": c.mb_per_s if c.run_ops else None,
                         "calls_per_run": c.calls_per_run, "runs_ops_per_s": c.run_ops, "error": c.error}
                        for c in cells.values()],
            "targets": targets,
        }, indent=2) + "\n")
        print(f"\nwrote {args.json}")
    if args.chart:
        subtitle = f"{machine['cpu']}, Python {machine['python']}" + (" (quick)" if args.quick else "")
        problem = draw_chart(args.chart, workloads, cells, subtitle)
        print(problem or f"wrote {args.chart}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
