"""One record of a batch, and the timestamp types.

A :class:`Record` is a plain value: absolute ``offset`` and ``timestamp`` (what a consumer
sees) next to the ``offset_delta`` and ``timestamp_delta`` stored on the wire, ``key`` and
``value`` as ``bytes`` or ``None``, and ``headers`` as a list of ``(str, bytes | None)``.
It has ``__slots__`` because a fetch can hold millions of them.
"""
from __future__ import annotations

from enum import IntEnum

Header = tuple[str, "bytes | None"]


class TimestampType(IntEnum):
    """What a timestamp means. Legacy magic 0 messages carry none."""

    NO_TIMESTAMP_TYPE = -1
    CREATE_TIME = 0
    LOG_APPEND_TIME = 1


NO_TIMESTAMP = -1


class Record:
    """A decoded record (magic 2, or a legacy message presented the same way).

    For legacy messages ``offset_delta`` is relative to the batch's first offset and
    ``timestamp_delta`` is 0: that format stores absolute values.
    """

    __slots__ = (
        "offset",
        "timestamp",
        "key",
        "value",
        "headers",
        "offset_delta",
        "timestamp_delta",
        "attributes",
    )

    def __init__(
        self,
        offset: int,
        timestamp: int,
        key: bytes | None,
        value: bytes | None,
        headers: list[Header],
        offset_delta: int,
        timestamp_delta: int,
        attributes: int = 0,
    ) -> None:
        self.offset = offset
        self.timestamp = timestamp
        self.key = key
        self.value = value
        self.headers = headers
        self.offset_delta = offset_delta
        self.timestamp_delta = timestamp_delta
        self.attributes = attributes

    def _fields(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record):
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # a mutable value type

    def __repr__(self) -> str:
        return (
            f"Record(offset={self.offset}, timestamp={self.timestamp}, key={self.key!r}, "
            f"value={_short(self.value)}, headers={self.headers!r})"
        )


def _short(value: bytes | None) -> str:
    if value is None or len(value) <= 40:
        return repr(value)
    return f"{value[:40]!r}...({len(value)} bytes)"
