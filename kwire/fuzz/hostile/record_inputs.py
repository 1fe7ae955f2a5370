"""Hostile record batches that get past the first checks.

A byte mutation of a batch almost always breaks its CRC, and of compressed records almost always
breaks the compressed stream, so the decoder stops early. Two helpers let inputs reach deeper:

* :func:`reseal_crcs` recomputes the CRC of every top-level entry (CRC-32C for magic 2, CRC-32 for
  magic 0/1) after mutation;
* :func:`mutate_records` decompresses the records of a batch (or the inner message set of a
  legacy wrapper), mutates the plain bytes, compresses them again with a random codec, and
  rebuilds a batch with a consistent length and CRC: hostile records behind every codec.
"""
from __future__ import annotations

import random
import struct
import zlib
from collections.abc import Sequence

from crc32c import crc32c

from kwire.wire.errors import KwireError

from ...records.compression import Codec, compress, decompress
from .mutations import mutate

_BATCH_HEADER = 61
_ENTRY = struct.Struct(">qi")
_CRC = struct.Struct(">I")
_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")
_ATTRIBUTES_AT = 21  # attributes of a magic 2 batch; CRC-32C covers from here to the end
_COUNT_AT = 57  # record count of a magic 2 batch
_PLAIN_LIMIT = 1 << 20  # decompress seeds up to this much (seeds are small)


def reseal_crcs(data: bytes) -> bytes:
    """``data`` with the stored CRC of each complete top-level entry made to match its bytes."""
    out = bytearray(data)
    pos = 0
    while len(out) - pos >= 17:
        _, size = _ENTRY.unpack_from(out, pos)
        end = pos + 12 + size
        if size < 0 or end > len(out):
            break
        magic = out[pos + 16]
        if magic == 2 and size >= _BATCH_HEADER - 12:
            _CRC.pack_into(out, pos + 17, crc32c(bytes(out[pos + _ATTRIBUTES_AT:end])))
        elif magic in (0, 1) and size >= 4:
            _CRC.pack_into(out, pos + 12, zlib.crc32(bytes(out[pos + 16:end])))
        pos = end
    return bytes(out)


def mutate_records(rng: random.Random, data: bytes, seeds: Sequence[bytes] = ()) -> bytes:
    """Mutate the (decompressed) contents of the first entry of ``data`` and rebuild it."""
    if len(data) < 17:
        return mutate(rng, data, seeds)
    magic = data[16]
    try:
        if magic == 2:
            rebuilt = _mutate_batch(rng, data, seeds)
        elif magic in (0, 1):
            rebuilt = _mutate_legacy(rng, data, seeds)
        else:
            rebuilt = None
    except KwireError:  # a seed that is itself broken: fall back to plain mutation
        rebuilt = None
    return mutate(rng, data, seeds) if rebuilt is None else rebuilt


def _random_codec(rng: random.Random, current: int, legacy: bool) -> Codec:
    if rng.random() < 0.5:
        return Codec(current & 0x07 if (current & 0x07) <= (3 if legacy else 4) else 0)
    return rng.choice(tuple(Codec)[:4] if legacy else tuple(Codec))


def _mutate_batch(rng: random.Random, data: bytes, seeds: Sequence[bytes]) -> bytes | None:
    _, batch_length = _ENTRY.unpack_from(data, 0)
    end = 12 + batch_length
    if batch_length < _BATCH_HEADER - 12 or end > len(data):
        return None
    (attributes,) = _INT16.unpack_from(data, _ATTRIBUTES_AT)
    codec = attributes & 0x07
    if codec > Codec.ZSTD:
        return None
    plain = decompress(codec, memoryview(data)[_BATCH_HEADER:end], _PLAIN_LIMIT)
    plain = mutate(rng, plain, ())
    new_codec = _random_codec(rng, attributes, legacy=False)
    packed = compress(new_codec, plain)
    header = bytearray(data[:_BATCH_HEADER])
    _INT32.pack_into(header, 8, _BATCH_HEADER - 12 + len(packed))
    _INT16.pack_into(header, _ATTRIBUTES_AT, (attributes & ~0x07) | new_codec)
    if rng.random() < 0.2:
        (count,) = _INT32.unpack_from(header, _COUNT_AT)
        wrong = rng.choice((0, 1, count - 1, count + 1, 2**31 - 1, -1, -2**31))
        _INT32.pack_into(header, _COUNT_AT, max(-2**31, min(2**31 - 1, wrong)))
    batch = bytes(header) + packed
    return reseal_crcs(batch) + data[end:]


_LEGACY_HEAD = struct.Struct(">qiIbb")


def _legacy_message(offset: int, magic: int, attributes: int, timestamp: int, key: bytes | None,
                    value: bytes | None) -> bytes:
    body = bytearray(struct.pack(">bb", magic, attributes))
    if magic == 1:
        body += struct.pack(">q", timestamp)
    for part in (key, value):
        body += _INT32.pack(-1) if part is None else _INT32.pack(len(part)) + part
    crc = zlib.crc32(bytes(body))
    return _ENTRY.pack(offset, 4 + len(body)) + _CRC.pack(crc) + bytes(body)


def _mutate_legacy(rng: random.Random, data: bytes, seeds: Sequence[bytes]) -> bytes | None:
    offset, size, _, magic, attributes = _LEGACY_HEAD.unpack_from(data, 0)
    end = 12 + size
    if end > len(data):
        return None
    cursor = 18
    timestamp = -1
    if magic == 1:
        (timestamp,) = struct.unpack_from(">q", data, cursor)
        cursor += 8
    parts: list[bytes | None] = []
    for _ in range(2):
        if cursor + 4 > end:
            return None
        (length,) = _INT32.unpack_from(data, cursor)
        cursor += 4
        if length < 0:
            parts.append(None)
            continue
        parts.append(data[cursor:cursor + length])
        cursor += length
    key, value = parts
    codec = attributes & 0x07
    if codec and value is not None and codec <= Codec.LZ4:
        inner = decompress(codec, value, _PLAIN_LIMIT, lenient_lz4_header=magic == 0)
        inner = mutate(rng, inner, ())
        if rng.random() < 0.7:
            inner = reseal_crcs(inner)
        new_codec = _random_codec(rng, attributes, legacy=True)
        value = compress(new_codec, inner)
        attributes = (attributes & ~0x07) | new_codec
    else:
        value = mutate(rng, value or b"", ())
    return _legacy_message(offset, magic, attributes, timestamp, key, value) + data[end:]
