"""Targets for record data: batches of every magic and codec, log files, control records.

Every batch read is taken all the way: its records decoded (decompressing them), the derived
header properties read, and a control batch's keys and values decoded. Decompression is capped
at :data:`DECOMPRESSION_CAP` (the records API enforces the cap; a small one keeps the fuzzer
fast), and the memory budget of these targets grows by what that cap allows.

* ``records:reader`` checks CRCs; three of four of its inputs get their CRCs resealed after
  mutation so that they reach the records.
* ``records:reader-nocrc`` skips the CRC check, as a caller may.
* ``records:file`` reads the same bytes as a log file, entry by entry.
* ``records:control`` decodes a control record: the first 4 bytes are its key, the rest its value.
"""
from __future__ import annotations

import io

from ...records import (
    BatchReader,
    Codec,
    FileBatchReader,
    RecordBatchBuilder,
    build_end_transaction_batch,
    control_records,
    encode_control_key,
    encode_end_transaction_marker,
)
from ...records.control import KRAFT_CONTROL_MESSAGES, decode_control_key, decode_control_value
from .corpus import captured_batches, kraft_entries, legacy_message_sets
from .record_inputs import mutate_records, reseal_crcs
from .target import MEMORY_PER_INPUT_BYTE, Target

DECOMPRESSION_CAP = 256 * 1024
# The decompressed bytes, the joined copy, and the records made from them (objects, like any
# decoded input, may take up to 64 bytes per byte).
DECOMPRESSION_MEMORY = (2 + MEMORY_PER_INPUT_BYTE) * DECOMPRESSION_CAP


def read_batches(batches) -> None:
    """Everything a consumer reads from each batch: records, header properties, control values."""
    for batch in batches:
        batch.records  # noqa: B018 - decoding the records is the point
        batch.compression, batch.timestamp_type, batch.last_offset, batch.next_offset  # noqa: B018
        batch.base_offset, batch.size_in_bytes  # noqa: B018
        if batch.is_control:
            from kwire.generated import MESSAGES

            control_records(batch, MESSAGES)


def _decode_checked(data: bytes) -> None:
    read_batches(BatchReader(data, max_decompressed_size=DECOMPRESSION_CAP))


def _decode_unchecked(data: bytes) -> None:
    read_batches(BatchReader(data, verify_crc=False, max_decompressed_size=DECOMPRESSION_CAP))


def _decode_file(data: bytes) -> None:
    read_batches(FileBatchReader(io.BytesIO(data), verify_crc=False, max_decompressed_size=DECOMPRESSION_CAP))


def _built_batches() -> list[bytes]:
    """Batches kwire writes with every codec: headers, null keys and values, a control batch."""
    built = []
    for codec in Codec:
        builder = RecordBatchBuilder(base_offset=7, codec=codec, producer_id=3, producer_epoch=1, base_sequence=0)
        builder.append(1_700_000_000_000, b"key", b"value", [("h", b"v"), ("empty", None)])
        builder.append(1_700_000_000_001, None, None)
        builder.append(1_700_000_000_005, b"", b"x" * 300, [("", b"")])
        built.append(builder.build())
    built.append(build_end_transaction_batch(committed=True, producer_id=3, producer_epoch=1,
                                             coordinator_epoch=5, timestamp=1_700_000_000_000))
    return built


def _batch_seeds() -> list[bytes]:
    seeds = list(captured_batches()) + list(kraft_entries())
    seeds += [*legacy_message_sets(), *_built_batches()]
    if len(seeds) > 1:
        seeds.append(seeds[0] + seeds[-1])  # back-to-back entries of different kinds
    return seeds


def _decode_control(data: bytes) -> None:
    from kwire.generated import MESSAGES

    key = decode_control_key(data[:4])
    decode_control_value(key.type, data[4:], MESSAGES)


def _control_seeds() -> list[bytes]:
    from kwire.generated import MESSAGES

    seeds = [encode_control_key(t) + encode_end_transaction_marker(9) for t in (0, 1)]
    for record_type, name in KRAFT_CONTROL_MESSAGES.items():
        seeds.append(encode_control_key(record_type) + MESSAGES[name]().encode(0))
    return seeds


def record_targets() -> list[Target]:
    mutators = (mutate_records,)
    return [
        Target("records:reader", _decode_checked, _batch_seeds, weight=25, extra_memory=DECOMPRESSION_MEMORY,
               mutators=mutators, fixup=reseal_crcs),
        Target("records:reader-nocrc", _decode_unchecked, _batch_seeds, weight=25,
               extra_memory=DECOMPRESSION_MEMORY, mutators=mutators),
        Target("records:file", _decode_file, _batch_seeds, weight=10, extra_memory=DECOMPRESSION_MEMORY,
               mutators=mutators),
        Target("records:control", _decode_control, _control_seeds, weight=3),
    ]
