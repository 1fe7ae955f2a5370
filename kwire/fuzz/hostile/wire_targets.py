"""Targets for what surrounds a message body on the wire: headers, frames, connections.

* ``header:request:v<N>`` / ``header:response:v<N>`` read a header at the start of the input.
* ``frame:request`` parses one whole size-prefixed request frame (and, as for messages, reads
  the batches of its ``records`` fields).
* ``frame:response`` needs the api key and version of the request it answers, which a response
  does not carry: the input is ``int16 api key | int16 api version | frame``.
* ``frame:connection`` cuts a byte stream into frames and runs them through a
  :class:`~kwire.network.framing.Correlator`: a frame whose correlation id is awaited is a response,
  any other a request (so captured connections, requests and responses interleaved, are seeds).
"""
from __future__ import annotations

import struct
from typing import Any

from kwire.network import framing, headers
from kwire.wire.errors import KwireError

from ..values import case_instance
from .codec_targets import read_message_records
from .corpus import CapturedFrame, captured_frames, connections
from .record_targets import DECOMPRESSION_MEMORY
from .target import NotAnInput, Target

_SELECTOR = struct.Struct(">hh")
_CORRELATION = struct.Struct(">i")
BUILT_FRAMES_PER_API = 3  # frames built from random instances, per api key


def _captured(direction: str) -> list[CapturedFrame]:
    return [f for f in captured_frames() if f.direction == direction]


def _built_frames(kind: str) -> list[tuple[int, int, bytes]]:
    """(api key, version, frame) built by kwire from random requests or responses."""
    from kwire.generated import MESSAGES

    build = framing.build_request_frame if kind == "request" else framing.build_response_frame
    found = []
    classes: list[Any] = [cls for _, cls in sorted(MESSAGES.items())]
    for cls in classes:
        if getattr(cls, "MESSAGE_TYPE", None) != kind:
            continue
        low, high = cls.VALID_VERSIONS
        for index in range(BUILT_FRAMES_PER_API):
            version = low + index * (high - low) // max(1, BUILT_FRAMES_PER_API - 1)
            try:
                frame = build(case_instance(cls, version, 0, index), version, index + 1)
            except KwireError:
                continue
            found.append((cls.API_KEY, version, frame))
    return found


# --- headers ----------------------------------------------------------------------------------

# direction -> the reader of its header, the captured frames' direction, the seed when there are none
_HEADERS = {"request": (headers.read_request_header, "req", bytes(8)),
            "response": (headers.read_response_header, "resp", bytes(5))}


def _header_target(direction: str, version: int) -> Target:
    read_header, captured, fallback = _HEADERS[direction]

    def decode(data: bytes) -> None:
        read_header(data, 0, version)

    def seeds() -> list[bytes]:
        return [f.data[4:] for f in _captured(captured)] or [fallback]

    return Target(f"header:{direction}:v{version}", decode, seeds, weight=3)


# --- frames -----------------------------------------------------------------------------------

def _decode_request_frame(data: bytes) -> None:
    read_message_records(framing.parse_request_frame(data).body)


def _request_frame_seeds() -> list[bytes]:
    return [f.data for f in _captured("req")] + [frame for _, _, frame in _built_frames("request")]


def _decode_response_frame(data: bytes) -> None:
    if len(data) < _SELECTOR.size:
        raise NotAnInput()
    api_key, api_version = _SELECTOR.unpack_from(data)
    _read_response_records(framing.parse_response_frame(data[_SELECTOR.size:], api_key, api_version))


def _read_response_records(frame) -> None:
    if not isinstance(frame.body, framing.UnsupportedApiVersions):
        read_message_records(frame.body)


def _response_frame_seeds() -> list[bytes]:
    seeds = [_SELECTOR.pack(f.api_key, f.api_version) + f.data for f in _captured("resp")]
    seeds += [_SELECTOR.pack(key, version) + frame for key, version, frame in _built_frames("response")]
    return seeds


def _decode_connection(data: bytes) -> None:
    correlator = framing.Correlator()
    for frame in framing.iter_frames(data):
        if len(frame) >= 8 and _CORRELATION.unpack_from(frame, 4)[0] in correlator.pending:
            _read_response_records(correlator.parse_response(frame))
        else:
            read_message_records(correlator.parse_request(frame).body)


def wire_targets() -> list[Target]:
    return [
        *(_header_target("request", v) for v in (0, 1, 2)),
        *(_header_target("response", v) for v in (0, 1)),
        Target("frame:request", _decode_request_frame, _request_frame_seeds, weight=25,
               extra_memory=DECOMPRESSION_MEMORY),
        Target("frame:response", _decode_response_frame, _response_frame_seeds, weight=25,
               extra_memory=DECOMPRESSION_MEMORY),
        Target("frame:connection", _decode_connection, connections, weight=10,
               extra_memory=DECOMPRESSION_MEMORY),
    ]
