"""Targets for the generated codecs: every message at every version, and their JSON form.

``message:<Name>:v<N>`` decodes a whole buffer with ``Name.decode(data, N)``. Its seeds are the
default instance, seeded random instances (:mod:`kwire.fuzz.values`), the bodies of captured
frames of that api key and version, and real KRaft record bodies. ``records`` fields decode to
lazy views; like a consumer, the target then reads every batch and record in them.

``json:<Name>`` reads ``[version, object]`` as JSON text and calls ``Name.from_dict(object,
version)``; text that is not JSON is not an input for kwire (the JSON parser is Python's).
"""
from __future__ import annotations

import json
import random
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from kwire.network.headers import read_request_header, read_response_header
from kwire.wire.errors import KwireError
from kwire.wire.index import load
from kwire.wire.message import GeneratedStruct

from ...records import RecordsView
from ..values import case_instance
from .corpus import captured_frames, kraft_record_bodies
from .json_mutations import mutate_document
from .record_targets import DECOMPRESSION_CAP, DECOMPRESSION_MEMORY, read_batches
from .target import NotAnInput, Target

RANDOM_INSTANCES = 6  # random instances per (message, version) among the seeds
SEED_STREAM = 0  # kwire.fuzz.values stream the seed instances come from


def versions(cls: type[GeneratedStruct]) -> range:
    low, high = cls.VALID_VERSIONS
    return range(low, high + 1)


def instance_encodings(cls: type[GeneratedStruct], version: int, count: int = RANDOM_INSTANCES) -> list[bytes]:
    """The default instance and ``count`` random ones, encoded at ``version``."""
    found = [cls().encode(version)]
    for index in range(count):
        try:
            found.append(case_instance(cls, version, SEED_STREAM, index).encode(version))
        except KwireError:  # a random value the version cannot carry: not a seed
            continue
    return found


@lru_cache(maxsize=1)
def captured_bodies() -> dict[tuple[str, int, int], tuple[bytes, ...]]:
    """Bodies of the captured frames by (message type, api key, version), header removed."""
    apis = load().apis
    found: dict[tuple[str, int, int], list[bytes]] = {}
    for frame in captured_frames():
        kind = "request" if frame.direction == "req" else "response"
        api = apis.get(frame.api_key)
        if api is None:
            continue
        try:
            if kind == "request":
                _, pos = read_request_header(frame.data, 4, api.request_header_version(frame.api_version))
            else:
                _, pos = read_response_header(frame.data, 4, api.response_header_version(frame.api_version))
        except KwireError:
            continue
        found.setdefault((kind, frame.api_key, frame.api_version), []).append(frame.data[pos:])
    return {key: tuple(bodies[:20]) for key, bodies in found.items()}


def _message_seeds(cls: Any, version: int) -> list[bytes]:
    seeds = instance_encodings(cls, version)
    kind: str = getattr(cls, "MESSAGE_TYPE", "")
    seeds += captured_bodies().get((kind, cls.API_KEY, version), ())
    if kind == "metadata":
        seeds += kraft_record_bodies().get((cls.API_KEY, version), ())
    return seeds


def has_records(cls: type[GeneratedStruct], seen: frozenset = frozenset()) -> bool:
    """Whether ``cls`` or any struct inside it has a ``records`` field."""
    for info in cls.FIELDS:
        if info.type == "records":
            return True
        if info.struct is not None and info.struct not in seen and has_records(info.struct, seen | {cls}):
            return True
    return False


def _records_views(obj: GeneratedStruct) -> list:
    views = []
    for info in type(obj).FIELDS:
        value = getattr(obj, info.attr)
        if value is None:
            continue
        if info.type == "records":
            views.append(value)
        elif info.struct is not None:
            for item in value if info.element_type is not None else (value,):
                views += _records_views(item)
    return views


def read_message_records(obj: GeneratedStruct) -> None:
    """Read every batch of every ``records`` field of a decoded message (CRCs unchecked, to go deep)."""
    for view in _records_views(obj):
        if isinstance(view, RecordsView):
            read_batches(view.batches(verify_crc=False, max_decompressed_size=DECOMPRESSION_CAP))


def message_target(cls: type[GeneratedStruct], version: int) -> Target:
    name = f"message:{cls.NAME}:v{version}"
    if not has_records(cls):
        def decode(data: bytes) -> None:
            cls.decode(data, version)

        return Target(name, decode, lambda: _message_seeds(cls, version))

    def decode_with_records(data: bytes) -> None:
        read_message_records(cls.decode(data, version))

    return Target(name, decode_with_records, lambda: _message_seeds(cls, version),
                  extra_memory=DECOMPRESSION_MEMORY)


def message_targets(messages: dict[str, type[GeneratedStruct]]) -> list[Target]:
    return [message_target(cls, version) for _, cls in sorted(messages.items()) for version in versions(cls)]


# --- JSON form --------------------------------------------------------------------------------

def _json_seeds(cls: type[GeneratedStruct]) -> list[bytes]:
    seeds = []
    for version in versions(cls):
        seeds.append(_document_bytes([version, cls().to_dict(version)]))
        for index in range(2):
            try:
                instance = case_instance(cls, version, SEED_STREAM, index)
                seeds.append(_document_bytes([version, instance.to_dict(version)]))
            except KwireError:
                continue
    return seeds


def _document_bytes(document: Any) -> bytes:
    return json.dumps(document).encode("utf-8")


def mutate_json_text(rng: random.Random, data: bytes, seeds: Sequence[bytes]) -> bytes:
    """A structural mutation of a JSON seed (the seed itself when it does not parse)."""
    try:
        document = json.loads(data)
    except (ValueError, RecursionError):
        return data
    return mutate_document(rng, document).encode("utf-8", "surrogatepass")


def json_target(cls: type[GeneratedStruct]) -> Target:
    def decode(data: bytes) -> None:
        try:
            document = json.loads(data)
        except (ValueError, RecursionError):  # Python's parser refused it: nothing for kwire to read
            raise NotAnInput() from None
        if not isinstance(document, list) or len(document) != 2:
            raise NotAnInput()
        version, body = document
        cls.from_dict(body, version)

    # Byte mutations of JSON text mostly stop at Python's parser, so most inputs are structural.
    return Target(f"json:{cls.NAME}", decode, lambda: _json_seeds(cls), mutators=(mutate_json_text,),
                  structural_share=0.75)


def json_targets(messages: dict[str, type[GeneratedStruct]]) -> list[Target]:
    return [json_target(cls) for _, cls in sorted(messages.items())]
