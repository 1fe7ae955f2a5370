"""The ``kwire`` Spark data source: Kafka log files as a DataFrame of records.

::

    spark.read.format("kwire").load("/var/lib/kafka/data")           # every topic-N under it
    spark.read.format("kwire").option("recordType", "PartitionRecord").load(".../__cluster_metadata-0")

Planning (on the driver) lists the files and cuts them at batch boundaries (``kwire.arrow.splits``);
each task decodes its pieces into Arrow batches (``kwire.arrow.pieces``), which go to the JVM as
Arrow, never as Python rows. Options are listed in ``kwire.arrow.options``. Paths must be readable
at the same location by the driver and every executor: a local path with ``local[*]``, a shared
mount on a cluster, or a URI of object storage (``s3://bucket/prefix``: see ``kwire.arrow.storage``).
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence

from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

from kwire.arrow import splits
from kwire.arrow.options import ScanOptions
from kwire.arrow.pieces import ReadOptions, read_pieces
from kwire.spark.schemas import to_spark

FORMAT = "kwire"


class SplitPartition(InputPartition):
    """One task's work: pieces of files (``splits.Piece``), read in order."""

    def __init__(self, index: int, pieces: list[splits.Piece]) -> None:
        super().__init__(index)
        self.index = index
        self.pieces = pieces

    def __repr__(self) -> str:
        size = sum(p.size for p in self.pieces)
        return f"SplitPartition({self.index}, {len(self.pieces)} pieces, {size} bytes)"


class KwireDataSource(DataSource):
    """Reads partition log segments, KRaft metadata logs and snapshots, coordinator logs and
    files of back-to-back record batches."""

    @classmethod
    def name(cls) -> str:
        return FORMAT

    def schema(self):
        scan = ScanOptions.parse(self.options)
        return to_spark(scan.read_options().schema())

    def reader(self, schema) -> KwireReader:
        scan = ScanOptions.parse(self.options)
        return KwireReader(scan, scan.read_options())


class KwireReader(DataSourceReader):
    def __init__(self, scan: ScanOptions, read_options: ReadOptions) -> None:
        self.scan = scan
        self.read_options = read_options  # settled once, on the driver, for every task

    def partitions(self) -> Sequence[InputPartition]:
        scan = self.scan
        plan = splits.plan(scan.files(), scan.max_split_bytes, scan.min_partitions)
        return [SplitPartition(i, pieces) for i, pieces in enumerate(plan)] or [SplitPartition(0, [])]

    def read(self, partition: InputPartition) -> Iterator:
        assert isinstance(partition, SplitPartition)
        yield from read_pieces(partition.pieces, self.read_options)


def register(spark) -> None:
    """Make ``spark.read.format("kwire")`` available in ``spark``."""
    spark.dataSource.register(KwireDataSource)
