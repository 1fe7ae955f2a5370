"""The one exception family kwire lets escape.

Everything kwire raises on bad input derives from :class:`KwireError`, so callers can
catch one class. Decode errors carry the field path and the byte offset where reading
went wrong, because "invalid data" alone is useless on a 2 MB FetchResponse.
"""
from __future__ import annotations


def join_path(outer: str, inner: str) -> str:
    """A field path inside another: ``topics[3]`` + ``partitions`` -> ``topics[3].partitions``;
    an index joins without a dot (``topics`` + ``[3]`` -> ``topics[3]``); either side may be empty."""
    if not outer or not inner:
        return outer or inner
    return f"{outer}{inner}" if inner.startswith("[") else f"{outer}.{inner}"


class KwireError(Exception):
    """Base class of every error kwire raises on purpose."""


class DecodeError(KwireError, ValueError):
    """Bytes that do not decode: truncated, over-long, out of range, or corrupt.

    ``path`` names the field being read (``topics[3].partitions[0].records``) and
    ``offset`` is the byte offset in the buffer where the problem was found.
    """

    def __init__(self, reason: str, *, path: str = "", offset: int | None = None) -> None:
        self.reason = reason
        self.path = path
        self.offset = offset
        where = []
        if path:
            where.append(f"field {path}")
        if offset is not None:
            where.append(f"byte offset {offset}")
        super().__init__(f"{reason} ({', '.join(where)})" if where else reason)

    def with_context(self, path: str | None = None, offset: int | None = None) -> DecodeError:
        """Return a copy with an outer path prefix and/or a missing offset filled in."""
        new_path = join_path(path, self.path) if path else self.path
        err = type(self).__new__(type(self))
        DecodeError.__init__(err, self.reason, path=new_path, offset=self.offset if self.offset is not None else offset)
        return err


class CorruptRecordError(DecodeError):
    """A record batch or message whose checksum or framing is wrong."""


class DecompressionLimitError(DecodeError):
    """Decompressed data would exceed the configured cap (a decompression bomb)."""


class EncodeError(KwireError, ValueError):
    """A value that cannot be written: out of range for its type, wrong type, too long."""

    def __init__(self, reason: str, *, path: str = "") -> None:
        self.reason = reason
        self.path = path
        super().__init__(f"{reason} (field {path})" if path else reason)


class UnsupportedVersionError(KwireError):
    """A version outside a message's valid range, or a value the version cannot carry."""


class SchemaError(KwireError):
    """A message definition that is malformed or breaks one of Kafka's rules."""
