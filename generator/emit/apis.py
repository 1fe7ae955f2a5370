"""What the generated package's ``APIS`` says of each api key: names and header versions.

Header versions follow Kafka's ``ApiMessageTypeGenerator`` (the generator of ``ApiMessageType``,
Kafka 4.2.1): a request takes RequestHeader v2 at its flexible versions and v1 below, except
ControlledShutdown v0, which takes v0 (its old header has no client id); a response takes
ResponseHeader v1 at its flexible versions and v0 below, except ApiVersionsResponse, always v0
(KIP-511: a client must read it before it knows which versions the broker speaks). A definition's
own ``headerVersions`` table, where given, decides instead.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..model import Message

API_VERSIONS_KEY = 18
CONTROLLED_SHUTDOWN_KEY = 7


@dataclass(frozen=True)
class ApiEntry:
    api_key: int
    name: str
    request: str
    response: str
    request_headers: tuple[tuple[int, int, int], ...]
    response_headers: tuple[tuple[int, int, int], ...]


def header_version(message: Message, version: int) -> int:
    """The header version that precedes ``version`` of a request or response."""
    for versions, header in message.header_versions:
        if version in versions:
            return header
    flexible = message.flexible_at(version)
    if message.type == "request":
        if message.api_key == CONTROLLED_SHUTDOWN_KEY and version == 0:
            return 0
        return 2 if flexible else 1
    if message.api_key == API_VERSIONS_KEY:
        return 0
    return 1 if flexible else 0


def header_ranges(message: Message) -> tuple[tuple[int, int, int], ...]:
    """(lowest, highest, header version) over the message's valid versions, runs merged."""
    ranges: list[tuple[int, int, int]] = []
    for version in message.versions():
        header = header_version(message, version)
        if ranges and ranges[-1][2] == header and ranges[-1][1] == version - 1:
            ranges[-1] = (ranges[-1][0], version, header)
        else:
            ranges.append((version, version, header))
    return tuple(ranges)


def api_entries(messages: Iterable[Message]) -> list[ApiEntry]:
    """One entry per api key that has both a request and a response, by api key."""
    requests = {m.api_key: m for m in messages if m.type == "request" and m.api_key is not None}
    responses = {m.api_key: m for m in messages if m.type == "response" and m.api_key is not None}
    entries = []
    for key in sorted(requests.keys() & responses.keys()):
        request, response = requests[key], responses[key]
        name = request.name.removesuffix("Request")
        entries.append(ApiEntry(key, name, request.name, response.name,
                                header_ranges(request), header_ranges(response)))
    return entries
