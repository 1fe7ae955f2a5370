"""Compression codecs of record batches, with a cap on decompressed size.

The codec is bits 0-2 of a batch's (or legacy wrapper message's) attributes:

====  ======  ==========================================================================
id    codec   wire form (what Kafka's Java client writes and reads)
====  ======  ==========================================================================
0     none
1     gzip    one or more gzip members (RFC 1952)
2     snappy  xerial framing: ``\\x82SNAPPY\\x00`` + int32 version + int32 compat, then
              big-endian int32-length-prefixed raw snappy blocks; raw snappy (no header)
              is accepted too
3     lz4     one LZ4 frame with independent blocks
4     zstd    one or more zstd frames (magic 2 only)
====  ======  ==========================================================================

:func:`decompress` enforces ``max_size`` while it decompresses, never after: no call into a
codec library may produce much more than what is left under the cap, so a decompression bomb
costs at most about ``max_size`` of memory before :class:`DecompressionLimitError` is raised.
Every failure of a codec library is re-raised as :class:`DecodeError`.
"""
from __future__ import annotations

import struct
import threading
import zlib
from enum import IntEnum

import cramjam
import lz4.frame
import zstandard

from kwire.wire.errors import DecodeError, DecompressionLimitError, EncodeError

#: Default cap on the decompressed size of one batch (or legacy wrapper message).
DEFAULT_MAX_DECOMPRESSED_SIZE = 64 * 1024 * 1024


class Codec(IntEnum):
    """Compression codec ids as they appear in bits 0-2 of the attributes."""

    NONE = 0
    GZIP = 1
    SNAPPY = 2
    LZ4 = 3
    ZSTD = 4


CODEC_MASK = 0x07

_XERIAL_MAGIC = b"\x82SNAPPY\x00"
_XERIAL_HEADER = _XERIAL_MAGIC + struct.pack(">ii", 1, 1)
_XERIAL_BLOCK_SIZE = 32 * 1024  # uncompressed bytes per block, as Kafka's SnappyOutputStream
_INT32 = struct.Struct(">i")
_GZIP_MAGIC = b"\x1f\x8b"

# Most output one lz4 call may produce; python-lz4 allocates max_length up front.
_LZ4_CHUNK = 1024 * 1024
# A zstd RLE block turns 4 input bytes into up to 128 KiB, so this many output bytes per input
# byte bounds what one decompress() call can produce.
_ZSTD_MAX_EXPANSION = 1 << 15
_ZSTD_MIN_WINDOW = 8 * 1024 * 1024
_ZSTD_MAX_WINDOW = 1 << 27


def codec_of(attributes: int, *, offset: int | None = None, legacy: bool = False) -> Codec:
    """The codec named by ``attributes``; DecodeError for ids Kafka does not define."""
    codec_id = attributes & CODEC_MASK
    if codec_id > Codec.ZSTD or (legacy and codec_id == Codec.ZSTD):
        raise DecodeError(f"unknown compression codec id {codec_id}", offset=offset)
    return Codec(codec_id)


def codec_name(attributes: int) -> str:
    """The codec's name for messages and reprs, never raising."""
    codec_id = attributes & CODEC_MASK
    return Codec(codec_id).name if codec_id <= Codec.ZSTD else f"unknown({codec_id})"


# ---------------------------------------------------------------------------------- compress


def compress(codec: Codec | int, data, level: int | None = None) -> bytes:
    """Compress ``data`` the way Kafka's producer does for ``codec`` (``level`` optional)."""
    try:
        codec = Codec(codec)
    except ValueError:
        raise EncodeError(f"unknown compression codec {codec!r}", path="codec") from None
    try:
        if codec == Codec.NONE:
            return bytes(data)
        if codec == Codec.GZIP:
            deflate = zlib.compressobj(-1 if level is None else level, zlib.DEFLATED, 31)
            return deflate.compress(data) + deflate.flush()
        if codec == Codec.SNAPPY:
            return _xerial_snappy_compress(memoryview(data))
        if codec == Codec.LZ4:
            return lz4.frame.compress(
                data,
                compression_level=0 if level is None else level,
                block_size=lz4.frame.BLOCKSIZE_MAX64KB,
                block_linked=False,
                content_checksum=False,
                store_size=False,
            )
        return zstandard.ZstdCompressor(level=3 if level is None else level).compress(data)
    except (zlib.error, RuntimeError, ValueError, TypeError, zstandard.ZstdError) as exc:
        raise EncodeError(f"{codec.name.lower()} compression failed: {exc}") from exc


def _xerial_snappy_compress(view: memoryview) -> bytes:
    parts = [_XERIAL_HEADER]
    for start in range(0, len(view), _XERIAL_BLOCK_SIZE):
        block = bytes(cramjam.snappy.compress_raw(view[start:start + _XERIAL_BLOCK_SIZE]))
        parts.append(_INT32.pack(len(block)))
        parts.append(block)
    return b"".join(parts)


# -------------------------------------------------------------------------------- decompress


def decompress(
    codec: Codec | int,
    data,
    max_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
    *,
    offset: int | None = None,
    lenient_lz4_header: bool = False,
) -> bytes:
    """Decompress ``data`` (bytes-like) compressed with ``codec``; at most ``max_size`` bytes out.

    ``offset`` is put in raised errors (where the compressed data sits in the caller's buffer).
    ``lenient_lz4_header`` skips the LZ4 frame descriptor checksum, which Kafka before 0.10 wrote
    wrongly (Kafka ignores it for magic 0 messages).
    """
    try:
        codec = Codec(codec)
    except ValueError:
        raise DecodeError(f"unknown compression codec {codec!r}", offset=offset) from None
    if codec == Codec.NONE:
        if len(data) > max_size:
            raise _over_limit(len(data), max_size, offset)
        return bytes(data)
    if codec == Codec.GZIP:
        return _gzip_decompress(data, max_size, offset)
    if codec == Codec.SNAPPY:
        return _snappy_decompress(memoryview(data), max_size, offset)
    if codec == Codec.LZ4:
        return _lz4_decompress(data, max_size, offset, lenient_lz4_header)
    return _zstd_decompress(data, max_size, offset)


def _over_limit(size: int, max_size: int, offset: int | None) -> DecompressionLimitError:
    return DecompressionLimitError(
        f"decompressed data exceeds the cap of {max_size} bytes (reached {size})", offset=offset
    )


def _corrupt(codec: str, detail: object, offset: int | None) -> DecodeError:
    return DecodeError(f"{codec} data does not decompress: {detail}", offset=offset)


def _gzip_decompress(data, max_size: int, offset: int | None) -> bytes:
    parts: list[bytes] = []
    produced = 0
    pending = data
    # Java's GZIPInputStream reads concatenated members and stops at bytes that are not one.
    while True:
        inflater = zlib.decompressobj(31)
        try:
            # max_length bounds the output; zlib grows its buffer gradually, never to max_length.
            chunk = inflater.decompress(pending, max_size - produced + 1)
        except zlib.error as exc:
            raise _corrupt("gzip", exc, offset) from exc
        produced += len(chunk)
        if produced > max_size:
            raise _over_limit(produced, max_size, offset)
        parts.append(chunk)
        if not inflater.eof:
            raise _corrupt("gzip", "the stream is truncated", offset)
        pending = inflater.unused_data
        if not pending.startswith(_GZIP_MAGIC):
            return b"".join(parts)


def _snappy_decompress(view: memoryview, max_size: int, offset: int | None) -> bytes:
    if view[:8] != _XERIAL_MAGIC:
        return _snappy_block(view, max_size, offset)
    if len(view) < len(_XERIAL_HEADER):
        raise _corrupt("snappy", "the xerial header is truncated", offset)
    parts: list[bytes] = []
    produced = 0
    pos = len(_XERIAL_HEADER)
    end = len(view)
    while pos < end:
        if end - pos < 4:
            raise _corrupt("snappy", "a xerial block length is truncated", offset)
        (length,) = _INT32.unpack_from(view, pos)
        pos += 4
        if length < 0 or length > end - pos:
            raise _corrupt("snappy", f"xerial block length {length} does not fit the data", offset)
        block = _snappy_block(view[pos:pos + length], max_size - produced, offset, produced)
        produced += len(block)
        parts.append(block)
        pos += length
    return b"".join(parts)


def _snappy_block(block, room: int, offset: int | None, already: int = 0) -> bytes:
    # A raw snappy block starts with its uncompressed length: check it before allocating.
    try:
        declared = cramjam.snappy.decompress_raw_len(block)
    except Exception as exc:  # cramjam raises its own DecompressionError and others
        raise _corrupt("snappy", exc, offset) from exc
    if declared > room:
        raise _over_limit(already + declared, already + room, offset)
    try:
        return bytes(cramjam.snappy.decompress_raw(block))
    except Exception as exc:
        raise _corrupt("snappy", exc, offset) from exc


def _lz4_decompress(data, max_size: int, offset: int | None, lenient_header: bool) -> bytes:
    if lenient_header:
        data = _with_accepted_lz4_header_checksum(data)
    inflater = lz4.frame.LZ4FrameDecompressor()
    parts: list[bytes] = []
    produced = 0
    pending = data
    while not inflater.eof:
        try:
            chunk = inflater.decompress(pending, max_length=min(max_size - produced + 1, _LZ4_CHUNK))
        except (RuntimeError, ValueError) as exc:  # python-lz4 reports LZ4F errors as RuntimeError
            raise _corrupt("lz4", exc, offset) from exc
        pending = b""
        produced += len(chunk)
        if produced > max_size:
            raise _over_limit(produced, max_size, offset)
        parts.append(chunk)
        if inflater.needs_input and not inflater.eof:
            raise _corrupt("lz4", "the frame is truncated", offset)
    # Like Kafka's KafkaLZ4BlockInputStream, anything after the end mark is ignored.
    return b"".join(parts)


def _with_accepted_lz4_header_checksum(data) -> bytes:
    """Replace the frame descriptor checksum byte with one lz4.frame accepts.

    Kafka before 0.10 computed that checksum over the wrong bytes and Kafka skips the check for
    magic 0. python-lz4 cannot skip it, so try the 256 possible values on the header alone.
    """
    data = bytes(data)
    if len(data) < 7:
        return data
    flags = data[4]
    # magic(4) FLG BD [content size(8)] [dictionary id(4)] HC
    descriptor_end = 7 + (8 if flags & 0x08 else 0) + (4 if flags & 0x01 else 0)
    if len(data) < descriptor_end:
        return data
    head = data[:descriptor_end - 1]
    for checksum in (data[descriptor_end - 1], *range(256)):  # the stored one first
        candidate = head + bytes((checksum,))
        try:
            lz4.frame.LZ4FrameDecompressor().decompress(candidate)
        except (RuntimeError, ValueError):
            continue
        return candidate + data[descriptor_end:]
    return data  # not a checksum problem: let the real decompression report it


# Decompression contexts, one per window cap and thread: setting one up and its first use cost
# more than decompressing a 100 kB batch with a context already warm (benchmarks/README.md,
# "Figures behind design choices").
_zstd_contexts = threading.local()


def _zstd_context(window: int) -> zstandard.ZstdDecompressor:
    contexts: dict[int, zstandard.ZstdDecompressor] | None = getattr(_zstd_contexts, "by_window", None)
    if contexts is None:
        contexts = _zstd_contexts.by_window = {}
    context = contexts.get(window)
    if context is None:
        context = contexts[window] = zstandard.ZstdDecompressor(max_window_size=window)
    return context


def _zstd_decompress(data, max_size: int, offset: int | None) -> bytes:
    window = min(_ZSTD_MAX_WINDOW, max(_ZSTD_MIN_WINDOW, 1 << max(max_size - 1, 1).bit_length()))
    context = _zstd_context(window)
    # One frame that declares its size within the cap (what most producers write): in one call,
    # into one buffer of that size. Anything else (several frames, no size, a size that lies,
    # corrupt data) goes the step-by-step way below, which also words the error.
    try:
        declared = zstandard.frame_content_size(data)
        if 0 < declared <= max_size:
            return context.decompress(data, allow_extra_data=False)
    except zstandard.ZstdError:
        pass
    view = memoryview(data)
    parts: list[bytes] = []
    produced = 0
    while True:  # one zstd frame per pass; Kafka's reader accepts concatenated frames
        inflater = context.decompressobj()
        pos = 0
        while not inflater.eof:
            if pos >= len(view):
                raise _corrupt("zstd", "the frame is truncated", offset)
            # Feed little enough input that one call cannot blow far past the cap.
            step = max(16, (max_size - produced) // _ZSTD_MAX_EXPANSION)
            try:
                chunk = inflater.decompress(view[pos:pos + step])
            except zstandard.ZstdError as exc:
                raise _corrupt("zstd", exc, offset) from exc
            pos += step
            produced += len(chunk)
            if produced > max_size:
                raise _over_limit(produced, max_size, offset)
            parts.append(chunk)
        # Bytes fed past the frame's end come back in unused_data.
        consumed = min(pos, len(view)) - len(inflater.unused_data)
        view = view[consumed:]
        if not view:
            return b"".join(parts)
