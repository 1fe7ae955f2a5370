"""Choosing API versions from a broker's ApiVersionsResponse.

:func:`negotiate` gives, for every API both sides know, the highest version both support: kwire's
range is that of its generated request class (its stable versions unless ``include_unstable``),
the broker's is what it listed. An API only one side knows is left out, as is one whose ranges do
not meet.

A broker older than the ApiVersions version asked answers UNSUPPORTED_VERSION with its own list
at v0 (KIP-511); :func:`negotiate` then raises :class:`ApiVersionsRefused`, whose
``retry_version`` is the version to ask again with: the highest ApiVersions version that broker
lists and kwire has, or 0 when its answer says nothing readable (every broker reads v0).

:func:`release_range` (from :mod:`kwire.network.releases`) names the Kafka releases whose version
tables match what a broker advertised.
"""
from __future__ import annotations

from typing import Any

from kwire.wire.errors import UnsupportedVersionError
from kwire.wire.index import API_VERSIONS_KEY, ProtocolIndex, load

from .errors import EXCEPTIONS, ErrorCode, exception_for
from .framing import UnsupportedApiVersions

# re-exported: negotiation's users name the releases through this module (README, "Which versions")
from .releases import ApiVersionsInputError as ApiVersionsInputError
from .releases import ReleaseMatch as ReleaseMatch
from .releases import release_range as release_range

# The newest version of a request that its definition marks ``latestVersionUnstable`` (brokers
# reject it unless configured to accept unstable versions), for generated classes that do not
# carry STABLE_VERSIONS themselves. From kwire's message_defs; tests/network/test_versions.py
# checks it against them.
UNSTABLE_LATEST: dict[int, int] = {22: 6}  # InitProducerId v6


class ApiVersionsRefused(UnsupportedVersionError):
    """The broker refused the ApiVersions version asked; ask again at ``retry_version``."""

    def __init__(self, asked: int, retry_version: int) -> None:
        self.asked = asked
        self.retry_version = retry_version
        super().__init__(f"the broker refused ApiVersions v{asked} (UNSUPPORTED_VERSION); "
                         f"ask again at v{retry_version}")


def our_versions(request_cls: Any, *, include_unstable: bool = False) -> tuple[int, int]:
    """kwire's (lowest, highest) version of a request class, the unstable latest left out unless asked."""
    low, high = request_cls.VALID_VERSIONS
    if include_unstable:
        return low, high
    stable = getattr(request_cls, "STABLE_VERSIONS", None)
    if stable is not None:
        return int(stable[0]), int(stable[1])
    if UNSTABLE_LATEST.get(request_cls.API_KEY) == high:
        high -= 1
    return low, high


def broker_versions(api_versions_response: Any) -> dict[int, tuple[int, int]]:
    """api key -> (min, max) as the broker listed them."""
    return {entry.api_key: (entry.min_version, entry.max_version) for entry in api_versions_response.api_keys}


def retry_version(refusal: Any, asked: int, index: ProtocolIndex | None = None) -> int:
    """The ApiVersions version to ask after UNSUPPORTED_VERSION to a request at ``asked``."""
    ours = load(index).request_class(API_VERSIONS_KEY).VALID_VERSIONS
    entries = refusal.api_keys or ()
    entry = next((e for e in entries if e.api_key == API_VERSIONS_KEY), None)
    if entry is None or entry.max_version >= asked:
        return 0  # no usable list (or a list that claims what it refused): v0 every broker reads
    return max(0, min(int(entry.max_version), int(ours[1])))


def negotiate(api_versions_response: Any, *, include_unstable: bool = False, asked: int | None = None,
              index: ProtocolIndex | None = None) -> dict[int, int]:
    """``{api_key: version}``: the highest version both kwire and the broker support, per API.

    ``api_versions_response`` is the decoded ApiVersionsResponse (or the
    :class:`~kwire.network.framing.UnsupportedApiVersions` a refusal decodes to). A refusal raises
    :class:`ApiVersionsRefused` (pass ``asked``, the version of the request, to get the right
    ``retry_version``); another error code raises its :mod:`kwire.network.errors` exception.
    """
    index = load(index)
    code = api_versions_response.error_code
    if isinstance(api_versions_response, UnsupportedApiVersions) or code == ErrorCode.UNSUPPORTED_VERSION:
        asked = asked if asked is not None else getattr(api_versions_response, "requested_version", 0)
        if asked == 0:
            raise EXCEPTIONS[ErrorCode.UNSUPPORTED_VERSION](ErrorCode.UNSUPPORTED_VERSION,
                                                            "the broker refused even ApiVersions v0")
        raise ApiVersionsRefused(asked, retry_version(api_versions_response, asked, index))
    error = exception_for(code)
    if error is not None:
        raise error
    chosen: dict[int, int] = {}
    for api_key, (their_low, their_high) in broker_versions(api_versions_response).items():
        if api_key not in index.apis:
            continue
        our_low, our_high = our_versions(index.request_class(api_key), include_unstable=include_unstable)
        if max(our_low, their_low) <= min(our_high, their_high):
            chosen[api_key] = min(our_high, their_high)
    return chosen
