"""What a generated package's index says of each api key: names, former names and header versions.

Header versions follow a definition's own ``headerVersions`` table where it gives one, else Kafka's
rule (:func:`kwire.wire.index.kafka_header_version`). Two definitions of one api key and type are
one API under two names, as Kafka renamed ListClientMetricsResources ListConfigResources (KIP-1142)
and kwire keeps the old name importable: the one whose versions strictly cover the other's is the
current name, whatever order the definitions were read in; two where neither covers the other's
versions are refused.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kwire.wire.index import kafka_header_version
from kwire.wire.primitives import INT16_MAX

from ..definitions.errors import DefinitionError, Problem
from ..definitions.model import Message
from ..definitions.versions import Versions

HeaderRanges = tuple[tuple[int, int, int], ...]


@dataclass(frozen=True)
class ApiEntry:
    api_key: int
    name: str
    request: str
    response: str
    request_headers: HeaderRanges
    response_headers: HeaderRanges
    valid_versions: tuple[int, int]
    former_names: tuple[tuple[int, int, str, str], ...] = ()  # (lowest, highest, request, response)
    listeners: tuple[str, ...] = ()
    stable_versions: tuple[int, int] | None = None
    deprecated_versions: tuple[int, int] | None = None


def header_version(message: Message, version: int) -> int:
    """The header version that precedes ``version`` of a request or response."""
    for versions, header in message.header_versions:
        if version in versions:
            return header
    return kafka_header_version(message.type, message.api_key or 0, version, message.flexible_at(version))


def header_ranges(message: Message) -> HeaderRanges:
    """(lowest, highest, header version) from version 0 up, runs merged, the last open-ended.

    Like Kafka's generated ``ApiMessageType.requestHeaderVersion``, every version has an answer,
    retired and future ones included: a broker answers an ApiVersions request newer than it knows
    with a v0 header (KIP-511), and a frame of a version kwire lacks is refused by the body's
    reader, not by its header."""
    ranges: list[tuple[int, int, int]] = []
    for version in range(message.valid_versions.highest + 2):
        header = header_version(message, version)
        if ranges and ranges[-1][2] == header and ranges[-1][1] == version - 1:
            ranges[-1] = (ranges[-1][0], version, header)
        else:
            ranges.append((version, version, header))
    low, _, header = ranges[-1]
    ranges[-1] = (low, INT16_MAX, header)
    return tuple(ranges)


def _covers(wider: Message, narrower: Message) -> bool:
    """Whether ``wider``'s versions strictly include ``narrower``'s (a former name of its API)."""
    outer, inner = wider.valid_versions, narrower.valid_versions
    return outer.lowest <= inner.lowest <= inner.highest <= outer.highest and \
        (outer.lowest, outer.highest) != (inner.lowest, inner.highest)


def current_name(candidates: list[Message]) -> tuple[Message, list[Message]]:
    """The definition of an api key that covers every other's versions, and the others (sorted by name)."""
    winners = [m for m in candidates if all(m is other or _covers(m, other) for other in candidates)]
    if len(winners) != 1:
        names = ", ".join(sorted(m.name for m in candidates))
        raise DefinitionError([Problem(m.source, "$.apiKey", f"two {m.type}s with api key {m.api_key} ({names}), "
                                       "neither covering the other's versions") for m in candidates[:1]])
    current = winners[0]
    return current, sorted((m for m in candidates if m is not current), key=lambda m: m.name)


def _range(versions: Versions) -> tuple[int, int] | None:
    low, high = versions.lowest, versions.highest
    return None if low > high else (low, high)


def api_entries(messages: Iterable[Message]) -> list[ApiEntry]:
    """One entry per api key that has both a request and a response, by api key."""
    by_key: dict[tuple[int, str], list[Message]] = {}
    for m in messages:
        if m.type in ("request", "response") and m.api_key is not None:
            by_key.setdefault((m.api_key, m.type), []).append(m)
    entries = []
    for key in sorted({k for k, kind in by_key if (k, "request") in by_key and (k, "response") in by_key}):
        request, former_requests = current_name(by_key[key, "request"])
        response, former_responses = current_name(by_key[key, "response"])
        responses = {m.name.removesuffix("Response"): m for m in former_responses}
        former = tuple((m.valid_versions.lowest, m.valid_versions.highest, m.name,
                        responses[m.name.removesuffix("Request")].name)
                       for m in former_requests if m.name.removesuffix("Request") in responses)
        stable = _range(request.valid_versions)
        if stable is not None and request.latest_version_unstable:
            stable = None if stable[1] - 1 < stable[0] else (stable[0], stable[1] - 1)
        entries.append(ApiEntry(key, request.name.removesuffix("Request"), request.name, response.name,
                                header_ranges(request), header_ranges(response),
                                (request.valid_versions.lowest, request.valid_versions.highest), former,
                                tuple(request.listeners), stable, _range(request.deprecated_versions)))
    return entries
