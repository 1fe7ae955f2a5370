"""Kafka data directories for the tests that read from object storage and run on a cluster."""
from __future__ import annotations

import random
import shutil
import struct
from pathlib import Path

from tests.paths import CAPTURES, KRAFT_390

BUCKET = "kafka-tier"


def partition_log(path: Path, batches: int, records: int, seed: int) -> None:
    """A segment of ``batches`` batches written by aiokafka's C builder (value sizes vary, every
    codec), at consecutive offsets as a broker would assign them."""
    from aiokafka.record._crecords import DefaultRecordBatchBuilder

    rng = random.Random(seed)
    parts, offset = [], 0
    for i in range(batches):
        builder = DefaultRecordBatchBuilder(2, i % 5, False, -1, -1, -1, 10**9)
        for j in range(records):
            value = b"%d:" % (offset + j) + rng.randbytes(rng.randrange(20, 200))
            key = None if j % 7 == 0 else b"key-%d" % rng.randrange(100)
            headers = [("h", b"%d" % j)] if j % 3 == 0 else []
            assert builder.append(j, 1_700_000_000_000 + offset + j, key, value, headers) is not None
        parts.append(struct.pack(">q", offset) + bytes(builder.build())[8:])
        offset += records
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(parts))


def make_kafka_dirs(root: Path) -> dict[str, Path]:
    """Local data directories the remote tests use, by name:

    - ``kraft``: a Kafka 3.9.0 node's data directory, as the broker wrote it (tests/data);
    - ``many``: six partitions of 1.2 MB, batches of about 8 KB from aiokafka's C builder and
      librdkafka's captured batches in a loose file: cut into a dozen tasks at 1 MB splits.
    """
    kraft = root / "kraft"
    shutil.copytree(KRAFT_390, kraft)
    many = root / "many"
    for partition in range(6):
        partition_log(many / f"orders-{partition}" / "00000000000000000000.log", batches=150, records=60,
                      seed=partition)
    loose = many / "loose"
    loose.mkdir()
    for path in sorted((CAPTURES / "librdkafka-mock" / "batches").glob("cap-*.batch"))[:3]:
        shutil.copy(path, loose / path.name)
    return {"kraft": kraft, "many": many}
