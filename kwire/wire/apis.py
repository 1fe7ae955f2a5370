"""The APIs of a generated package, by api key: names, classes and header versions.

A generated package's ``APIS`` maps each api key to an :class:`Api`. It holds names only, so that
it costs nothing at import: ``request_class`` and ``response_class`` import their module on first
use (through the package's lazy ``MESSAGES``).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import UnsupportedVersionError

# (lowest, highest, header version): a range of message versions and the header version they take.
HeaderRanges = tuple[tuple[int, int, int], ...]


class Api:
    """One API: a request and its response, as one api key names them."""

    __slots__ = ("api_key", "name", "request_name", "response_name", "request_headers", "response_headers", "_load")

    def __init__(self, api_key: int, name: str, request_name: str, response_name: str,
                 request_headers: HeaderRanges, response_headers: HeaderRanges,
                 load: Callable[[str], Any]) -> None:
        self.api_key = api_key
        self.name = name  # Kafka's name of the API: the request's name without "Request"
        self.request_name = request_name
        self.response_name = response_name
        self.request_headers = request_headers
        self.response_headers = response_headers
        self._load = load

    @property
    def request_class(self) -> Any:
        """The generated request class (its module imported on first use)."""
        return self._load(self.request_name)

    @property
    def response_class(self) -> Any:
        """The generated response class (its module imported on first use)."""
        return self._load(self.response_name)

    def request_header_version(self, version: int) -> int:
        """The RequestHeader version that precedes ``version`` of the request."""
        return self._header(self.request_headers, version, self.request_name)

    def response_header_version(self, version: int) -> int:
        """The ResponseHeader version that precedes ``version`` of the response."""
        return self._header(self.response_headers, version, self.response_name)

    @staticmethod
    def _header(ranges: HeaderRanges, version: int, name: str) -> int:
        for low, high, header in ranges:
            if low <= version <= high:
                return header
        valid = f"{ranges[0][0]}..{ranges[-1][1]}" if ranges else "none"
        raise UnsupportedVersionError(f"{name} has no version {version!r} (valid: {valid})")

    def __repr__(self) -> str:
        return f"Api({self.api_key}, {self.name!r})"
