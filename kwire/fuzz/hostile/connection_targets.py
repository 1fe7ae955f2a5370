"""The sans-I/O connection's receive path under hostile bytes.

``connection:receive`` starts a :class:`~kwire.network.connection.Connection` (it queues ApiVersions
v4 with correlation id 1) and feeds it the input in uneven chunks, as a socket would; once the
connection is ready it sends Metadata, Fetch and Produce requests (ids 2, 3, 4), so the frames
after the ApiVersions answer reach real decoders. Then it asks for timeouts and reports the stream
closed. The seeds are well-formed conversations built from random instances; byte mutation does
the rest. Only kwire's errors may escape, and nothing may hang (the runner times every case).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kwire.generated import ApiVersionsResponse, FetchRequest, MetadataRequest, ProduceRequest
from kwire.generated.api_versions_response import ApiVersion
from kwire.network.connection import Connection, Ready, State
from kwire.network.framing import build_response_frame
from kwire.wire.errors import KwireError

from ..values import case_instance
from .record_targets import DECOMPRESSION_MEMORY
from .target import Target

# What the harness asks once ready: (request, version, correlation id).
_FOLLOW_UPS: tuple[tuple[Any, int, int], ...] = ((MetadataRequest, 12, 2), (FetchRequest, 12, 3),
                                                 (ProduceRequest, 9, 4))
_CHUNKS = (1, 7, 64, 4096)  # chunk sizes, in turn: frames arrive split anywhere


def _decode(data: bytes) -> None:
    connection = Connection(request_timeout=5.0)
    connection.start(0.0)
    connection.data_to_send()
    pos, turn, now, asked = 0, 0, 0.0, False
    while pos < len(data) and connection.state is not State.CLOSED:
        # one frame's worth (by its size prefix, as far as the input goes), in uneven chunks, so
        # that requests sent on Ready are waiting before the next frame arrives
        size = int.from_bytes(data[pos:pos + 4], "big", signed=True) if len(data) - pos >= 4 else 0
        end = min(len(data), pos + 4 + max(size, 0))
        events = []
        while pos < end and connection.state is not State.CLOSED:
            chunk = data[pos:min(end, pos + _CHUNKS[turn % len(_CHUNKS)])]
            pos, turn, now = pos + len(chunk), turn + 1, now + 0.001
            events += connection.receive_data(chunk, now)
        if not asked and any(isinstance(event, Ready) for event in events):
            asked = True
            for cls, version, _ in _FOLLOW_UPS:
                connection.send(cls(acks=-1) if cls is ProduceRequest else cls(), now, version=version)
            connection.data_to_send()
    connection.check_timeouts(now + 10.0)
    connection.connection_lost()


def _seeds() -> Sequence[bytes]:
    apis = [ApiVersion(api_key=k, min_version=0, max_version=v) for k, v in ((0, 9), (1, 12), (3, 12), (18, 4))]
    ready = build_response_frame(ApiVersionsResponse(api_keys=apis), 4, 1)
    seeds = [ready]
    for index in range(4):
        answers = b""
        for cls, version, correlation_id in _FOLLOW_UPS:
            from kwire.generated import MESSAGES

            response_cls = MESSAGES[cls.NAME.replace("Request", "Response")]
            try:
                answers += build_response_frame(case_instance(response_cls, version, 0, index), version,
                                                correlation_id)
            except KwireError:
                continue
        seeds.append(ready + answers)
    # KIP-511: a refusal at v0 listing ApiVersions 0..2 (hand-written), then the v2 answer
    refusal = bytes.fromhex("00000012" "00000001" "0023" "00000001" "001200000002")
    seeds.append(refusal + build_response_frame(ApiVersionsResponse(api_keys=apis), 2, 2))
    return seeds


def connection_targets() -> list[Target]:
    return [Target("connection:receive", _decode, _seeds, weight=10, extra_memory=DECOMPRESSION_MEMORY)]
