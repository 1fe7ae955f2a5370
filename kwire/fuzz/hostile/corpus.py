"""Valid inputs to mutate: real frames and batches from outside kwire, and kwire's own encodings.

The real material is a folder laid out as kwire's ``tests/data``: ``captures/*/raw/*.bin``
(captured client frames) and ``captures/*/batches/*.batch`` (their record batches),
``kafka-go/fixtures/*.hex`` (a real broker's FetchResponses with legacy message sets) and
``kraft-*/`` (KRaft metadata logs written by Kafka). It is named by ``$KWIRE_HOSTILE_CORPUS``
(``kwire fuzz --bytes --corpus DIR``); without it the fuzzer still runs on encodings of generated
instances.
"""
from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from kwire.generated import MESSAGES
from kwire.records import BatchReader
from kwire.wire.errors import KwireError
from kwire.wire.primitives import read_uvarint

_FRAME_NAME = re.compile(
    r"c(?P<conn>\d+)_(?P<dir>req|resp)_(?P<seq>\d+)_k(?P<key>\d+)_v(?P<version>\d+)_corr-?\d+\.bin$")
_ENTRY = struct.Struct(">qi")
KRAFT_ENTRIES_PER_FILE = 40  # the first entries of each log, then a sparse sample of the rest


CORPUS_VARIABLE = "KWIRE_HOSTILE_CORPUS"


def corpus_dir() -> Path | None:
    """The folder of real frames, batches and logs named by ``$KWIRE_HOSTILE_CORPUS``, if any."""
    configured = os.environ.get(CORPUS_VARIABLE)
    if configured and Path(configured).is_dir():
        return Path(configured)
    return None


def corpus_files(*patterns: str) -> list[Path]:
    """The corpus's files each glob pattern matches, sorted pattern by pattern; none without a corpus."""
    root = corpus_dir()
    if root is None:
        return []
    return [path for pattern in patterns for path in sorted(root.glob(pattern))]


@dataclass(frozen=True)
class CapturedFrame:
    """One size-prefixed frame recorded from a real client or broker."""

    source: str  # capture set and connection, e.g. "tansu/c03"
    direction: str  # "req" or "resp"
    sequence: int
    api_key: int
    api_version: int
    data: bytes


@lru_cache(maxsize=1)
def captured_frames() -> tuple[CapturedFrame, ...]:
    frames = []
    for path in corpus_files("captures/*/raw/*.bin"):
        match = _FRAME_NAME.match(path.name)
        if match is None:
            continue
        frames.append(CapturedFrame(
            source=f"{path.parent.parent.name}/c{match['conn']}", direction=match["dir"],
            sequence=int(match["seq"]), api_key=int(match["key"]), api_version=int(match["version"]),
            data=path.read_bytes()))
    return tuple(frames)


def connections() -> list[bytes]:
    """Each captured connection's frames back to back, requests and responses interleaved."""
    by_source: dict[str, list[CapturedFrame]] = {}
    for frame in captured_frames():
        by_source.setdefault(frame.source, []).append(frame)
    streams = []
    for frames in by_source.values():
        frames.sort(key=lambda f: (f.sequence, f.direction != "req"))
        streams.append(b"".join(f.data for f in frames))
    return streams


@lru_cache(maxsize=1)
def captured_batches() -> tuple[bytes, ...]:
    return tuple(path.read_bytes() for path in corpus_files("captures/*/batches/*.batch"))


def split_entries(data: bytes) -> list[bytes]:
    """The complete ``offset | size | ...`` entries at the start of a log-like buffer."""
    entries, pos = [], 0
    while len(data) - pos >= 12:
        _, size = _ENTRY.unpack_from(data, pos)
        end = pos + 12 + size
        if size < 0 or end > len(data):
            break
        entries.append(data[pos:end])
        pos = end
    return entries


@lru_cache(maxsize=1)
def kraft_entries() -> tuple[bytes, ...]:
    """Batches of real KRaft metadata logs, snapshots and bootstrap checkpoints."""
    picked = []
    for path in corpus_files("kraft-*/__cluster_metadata-0/*.log", "kraft-*/**/*.checkpoint"):
        entries = split_entries(path.read_bytes())
        step = max(1, len(entries) // KRAFT_ENTRIES_PER_FILE)
        picked += entries[:KRAFT_ENTRIES_PER_FILE] + entries[KRAFT_ENTRIES_PER_FILE::step]
    return tuple(picked)


@lru_cache(maxsize=1)
def broker_fetch_frames() -> tuple[bytes, ...]:
    """FetchResponse frames from a real broker (legacy message sets, gzip wrappers, v2 batches)."""
    return tuple(bytes.fromhex(path.read_text().strip()) for path in corpus_files("kafka-go/fixtures/*.hex"))


def records_fields(obj: Any) -> list[bytes]:
    """Every non-empty ``records`` field value inside a decoded generated message."""
    found: list[bytes] = []
    for info in type(obj).FIELDS:
        value = getattr(obj, info.attr)
        if value is None:
            continue
        if info.type == "records" and len(value):
            found.append(bytes(value))
        elif info.struct is not None:
            for item in value if info.element_type is not None else (value,):
                found += records_fields(item)
    return found


@lru_cache(maxsize=1)
def legacy_message_sets() -> tuple[bytes, ...]:
    """The records regions of the real broker's FetchResponses (their version found by trying)."""
    fetch = MESSAGES["FetchResponse"]
    found = []
    for frame in broker_fetch_frames():
        body = frame[8:]  # size prefix, then the v0 response header (correlation id)
        for version in range(fetch.VALID_VERSIONS[0], fetch.VALID_VERSIONS[1] + 1):
            try:
                found += records_fields(fetch.decode(body, version))
                break
            except KwireError:  # not this version: try the next
                continue
    return tuple(found)



@lru_cache(maxsize=1)
def kraft_record_bodies() -> dict[tuple[int, int], tuple[bytes, ...]]:
    """Bodies of real KRaft metadata records, by (api key, version), at most 20 of each.

    Each record value is ``frameVersion | apiKey | version`` (unsigned varints) then the body.
    """
    found: dict[tuple[int, int], list[bytes]] = {}
    for entry in kraft_entries():
        try:
            for batch in BatchReader(entry):
                if batch.is_control:
                    continue
                for record in batch.records:
                    value = record.value or b""
                    _, pos = read_uvarint(value, 0, len(value))
                    api_key, pos = read_uvarint(value, pos, len(value))
                    version, pos = read_uvarint(value, pos, len(value))
                    bodies = found.setdefault((api_key, version), [])
                    if len(bodies) < 20:
                        bodies.append(value[pos:])
        except KwireError:
            continue
    return {key: tuple(bodies) for key, bodies in found.items()}
