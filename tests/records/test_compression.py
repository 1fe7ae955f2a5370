"""Codecs against independent encoders/decoders, and the decompressed-size cap.

References: stdlib gzip/zlib, python-snappy as kafka-python uses it (kafka.codec, xerial
framing), cramjam as aiokafka uses it (aiokafka.codec), lz4.frame, zstandard.
"""
from __future__ import annotations

import gzip
import struct
import tracemalloc

import cramjam
import lz4.frame
import pytest
import zstandard

from kwire.records import Codec, RecordBatchBuilder, compress, decode_batch, decompress
from kwire.wire.errors import DecodeError, DecompressionLimitError, EncodeError
from tests.optional import later

aiokafka_codec = later("aiokafka.codec")
kafka_codec = later("kafka.codec")

PAYLOADS = [
    b"",
    b"a",
    bytes(range(256)) * 700,  # crosses snappy's 32 KiB xerial blocks and lz4's 64 KiB blocks
    b"".join(b"record %d with some text\n" % i for i in range(5000)),
]

FOREIGN_DECODERS = {
    Codec.GZIP: [gzip.decompress, kafka_codec.gzip_decode, aiokafka_codec.gzip_decode],
    Codec.SNAPPY: [kafka_codec.snappy_decode, aiokafka_codec.snappy_decode],
    Codec.LZ4: [lz4.frame.decompress, kafka_codec.lz4_decode, aiokafka_codec.lz4_decode],
    Codec.ZSTD: [lambda data: zstandard.ZstdDecompressor().decompressobj().decompress(data),
                 aiokafka_codec.zstd_decode],
}
FOREIGN_ENCODERS = {
    Codec.GZIP: [gzip.compress, kafka_codec.gzip_encode, aiokafka_codec.gzip_encode],
    Codec.SNAPPY: [
        kafka_codec.snappy_encode,
        aiokafka_codec.snappy_encode,
        lambda data: aiokafka_codec.snappy_encode(data, xerial_compatible=False),  # raw snappy
        lambda data: bytes(cramjam.snappy.compress_raw(data)),
    ],
    Codec.LZ4: [kafka_codec.lz4_encode, aiokafka_codec.lz4_encode, lz4.frame.compress],
    Codec.ZSTD: [kafka_codec.zstd_encode, aiokafka_codec.zstd_encode, zstandard.ZstdCompressor(level=19).compress],
}


def codec_cases(table):
    return [
        pytest.param(codec, fn, id=f"{codec.name.lower()}-{i}")
        for codec, fns in table.items()
        for i, fn in enumerate(fns)
    ]


def decoder_cases():
    for param in codec_cases(FOREIGN_DECODERS):
        codec, decode = param.values
        for payload in PAYLOADS:
            # kafka-python and aiokafka mistake a bare 16-byte xerial header for raw snappy
            if codec == Codec.SNAPPY and not payload:
                continue
            yield pytest.param(codec, decode, payload, id=f"{param.id}-{len(payload)}B")


# a list: mutmut collects twice in one process
@pytest.mark.parametrize("codec, decode, payload", list(decoder_cases()))
def test_what_kwire_compresses_decompresses_elsewhere(codec, decode, payload):
    assert bytes(decode(compress(codec, payload))) == payload


def test_empty_xerial_stream_is_just_the_header():
    assert compress(Codec.SNAPPY, b"") == b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)
    assert decompress(Codec.SNAPPY, compress(Codec.SNAPPY, b"")) == b""


@pytest.mark.parametrize("codec, encode", codec_cases(FOREIGN_ENCODERS))
@pytest.mark.parametrize("payload", PAYLOADS, ids=lambda p: f"{len(p)}B")
def test_kwire_decompresses_what_others_compress(codec, encode, payload):
    assert decompress(codec, encode(payload)) == payload


def test_xerial_framing_is_what_kafka_writes():
    data = compress(Codec.SNAPPY, bytes(70_000))
    # magic, version 1, compatible version 1, then int32-length-prefixed blocks of 32 KiB input
    assert data[:16] == b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)
    pos, blocks = 16, []
    while pos < len(data):
        (length,) = struct.unpack_from(">i", data, pos)
        blocks.append(bytes(cramjam.snappy.decompress_raw(data[pos + 4:pos + 4 + length])))
        pos += 4 + length
    assert [len(b) for b in blocks] == [32768, 32768, 70_000 - 65536]


def test_lz4_frames_have_independent_blocks_like_kafka():
    frame = compress(Codec.LZ4, bytes(range(256)) * 1000)
    flags = frame[4]
    assert frame[:4] == b"\x04\x22\x4d\x18" and flags & 0x20  # block independence bit


def test_gzip_members_are_concatenated_like_javas_gzipinputstream():
    assert decompress(Codec.GZIP, gzip.compress(b"first ") + gzip.compress(b"second")) == b"first second"


def test_zstd_frames_are_concatenated():
    make = zstandard.ZstdCompressor().compress
    assert decompress(Codec.ZSTD, make(b"one ") + make(b"two")) == b"one two"


@pytest.mark.parametrize("declared", [300, 1000])
def test_a_zstd_frame_that_misstates_its_size_is_an_error(declared):
    # A frame with its content size declares it in the header: decompressed in one call when it
    # fits the cap. A false size must fail (as libzstd checks it), not cut or pad the data.
    data = bytes(range(200)) * 3
    frame = bytearray(zstandard.ZstdCompressor(write_content_size=True).compress(data))
    assert frame[4] == 0x60  # single segment, 2-byte content size (stored minus 256) at byte 5
    assert decompress(Codec.ZSTD, bytes(frame)) == data
    struct.pack_into("<H", frame, 5, declared - 256)
    assert zstandard.frame_content_size(bytes(frame)) == declared
    with pytest.raises(DecodeError, match="zstd data does not decompress"):
        decompress(Codec.ZSTD, bytes(frame))


@pytest.mark.parametrize("codec", [c for c in Codec if c != Codec.NONE], ids=lambda c: c.name.lower())
def test_truncated_or_garbled_streams_raise_decode_error(codec):
    data = compress(codec, b"".join(b"line %d\n" % i for i in range(3000)))
    for broken in (data[: len(data) // 2], data[:-1], data[:3], b"\x00" * 40, data[:20] + b"\xff" * 60):
        with pytest.raises(DecodeError, match=f"^{codec.name.lower()} data does not decompress: "):
            decompress(codec, broken)


# ------------------------------------------------------------------------- decompression bombs

CAP = 1 << 20
BOMB_SIZE = 64 << 20


def xerial(blocks):
    return b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1) + b"".join(
        struct.pack(">i", len(b)) + b for b in blocks
    )


def bombs():
    zeros = bytes(BOMB_SIZE)
    snappy_block = bytes(cramjam.snappy.compress_raw(bytes(4 << 20)))
    yield pytest.param(Codec.GZIP, gzip.compress(zeros, compresslevel=1), id="gzip")
    yield pytest.param(Codec.LZ4, lz4.frame.compress(zeros), id="lz4")
    yield pytest.param(Codec.ZSTD, zstandard.ZstdCompressor().compress(zeros), id="zstd")
    yield pytest.param(Codec.SNAPPY, xerial([snappy_block] * 16), id="snappy-xerial")
    yield pytest.param(Codec.SNAPPY, snappy_block, id="snappy-raw")
    # a raw block that merely claims 1 GiB: refused from its length header alone
    yield pytest.param(Codec.SNAPPY, b"\x80\x80\x80\x80\x04" + b"\x00" * 10, id="snappy-claim")


@pytest.mark.parametrize("codec, bomb", list(bombs()))
def test_decompression_bomb_hits_the_cap_without_inflating(codec, bomb):
    tracemalloc.start()
    try:
        with pytest.raises(DecompressionLimitError, match=f"cap of {CAP} bytes"):
            decompress(codec, bomb, CAP, offset=123)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The cap is enforced while streaming: far less than the bomb's 64 MiB is ever held.
    assert peak < 8 * CAP


@pytest.mark.parametrize("codec", [c for c in Codec if c != Codec.NONE], ids=lambda c: c.name.lower())
def test_batch_with_bomb_reports_the_cap(codec):
    builder = RecordBatchBuilder(codec=codec, base_offset=500)
    builder.append(0, None, bytes(8 << 20))
    batch = decode_batch(builder.build(), max_decompressed_size=CAP)
    with pytest.raises(DecompressionLimitError) as info:
        _ = batch.records
    assert info.value.offset == 61  # where the compressed records start
    # within the cap the same batch decodes
    assert len(decode_batch(builder.build(), max_decompressed_size=16 << 20).records[0].value) == 8 << 20


def test_exactly_the_cap_is_allowed():
    payload = bytes(range(256)) * 4
    for codec in Codec:
        assert decompress(codec, compress(codec, payload), len(payload)) == payload
        with pytest.raises(DecompressionLimitError):
            decompress(codec, compress(codec, payload), len(payload) - 1)


def test_unknown_codec_ids():
    with pytest.raises(DecodeError, match="unknown compression codec 7"):
        decompress(7, b"")
    with pytest.raises(EncodeError, match="unknown compression codec 5"):
        compress(5, b"")
