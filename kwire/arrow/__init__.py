"""Kafka log files as Arrow record batches, in this process: needs PyArrow and nothing else.

::

    from kwire.arrow import iter_record_batches, read_table

    for batch in iter_record_batches("/var/lib/kafka/data"):   # pyarrow.RecordBatch, a few at a time
        print(batch.num_rows)
    table = read_table("/var/lib/kafka/data/__cluster_metadata-0")  # all of it, as one pyarrow.Table

Modules: ``logfiles`` (which files, of which kind), ``storage`` (reading them: local disks, or
``s3://``, ``gs://``, ``hdfs://`` through ``pyarrow.fs``), ``splits`` (cutting files at batch
boundaries), ``options`` (the options of a read), ``pieces`` (pieces of files to Arrow batches),
``record_arrays`` (Arrow arrays over the column decoder's buffers), ``decoders`` (record values
to messages), ``typed`` (the typed ``record`` column), ``schemas`` (Arrow schemas of rows and
messages), ``reader`` (``iter_record_batches``, ``read_table``), ``output`` (Parquet and JSON
files written batch by batch), ``decode_files`` (``kwire decode`` without Spark: one process per
split). The Spark data source (:mod:`kwire.spark`) runs the same planning and decoding in its
tasks, so both give the same rows.
"""
from __future__ import annotations

from kwire.wire.lazy import lazy_exports

_EXPORTS = {
    "iter_record_batches": "kwire.arrow.reader",
    "read_table": "kwire.arrow.reader",
    "record_schema": "kwire.arrow.schemas",
    "arrow_schema": "kwire.arrow.schemas",
    "message_type": "kwire.arrow.schemas",
}

# Imported on first use (PyArrow loads only then), so there is no __all__: the API reference
# documents each name in its own module.
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
