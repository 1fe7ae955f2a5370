"""What a decode job wrote, read back from its output: files, batches, records, bytes not decoded,
batches whose CRC fails."""
from __future__ import annotations

from kwire.arrow.output import WrittenSummary


def written_summary(spark, out: str, output_format: str, skipped: bool) -> WrittenSummary:
    """Count what ``out`` holds (``skipped``: the rows have the skipped-range columns)."""
    from pyspark.sql import functions as F

    frame = spark.read.format(output_format).load(out)
    skipped = skipped and "skipped_bytes" in frame.columns  # JSON lines leave out a column null in every row
    records = frame.where("skipped_bytes IS NULL") if skipped else frame
    counts = records.agg(F.countDistinct("file").alias("files"),
                         F.countDistinct("file", "base_offset").alias("batches"),
                         F.count(F.lit(1)).alias("records")).first()
    crc_failures = records.where("crc_valid = false").select("file", "base_offset").distinct().count()
    ranges, lost = 0, 0
    if skipped:
        row = frame.where("skipped_bytes IS NOT NULL").agg(F.count(F.lit(1)).alias("n"),
                                                          F.sum("skipped_bytes").alias("bytes")).first()
        ranges, lost = row["n"], row["bytes"] or 0
    return WrittenSummary(counts["files"], counts["batches"], counts["records"], ranges, lost, crc_failures)
