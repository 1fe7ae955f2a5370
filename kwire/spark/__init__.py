"""kwire on Apache Spark: Kafka log files as DataFrames, and typed message columns.

::

    from kwire.spark import build_session, decode_column

    spark = build_session()                                   # local[*] unless told otherwise
    records = spark.read.format("kwire").load("/var/lib/kafka/data")
    typed = decode_column(frames, "body", "MetadataResponse", 12)

Modules: ``session`` (the SparkSession), ``shipping`` (kwire to a cluster's executors, as
archives), ``shipped`` (a shipped copy on an executor: compiled modules that cannot load fall back),
``datasource`` (the ``kwire`` format: :mod:`kwire.arrow` plans and decodes, Spark only decides
which process reads which piece), ``schemas`` (Spark schemas of kwire's Arrow ones), ``decode``
(``decode_column``), ``summary`` (what a job wrote), ``fuzz`` (``kwire fuzz --spark``),
``progress`` (a progress line for jobs). ``read_table`` is :func:`kwire.arrow.read_table`, which
needs no Spark.
PySpark is imported only by the modules that need it.
"""
from __future__ import annotations

from kwire.wire.lazy import lazy_exports

_EXPORTS = {
    "build_session": "kwire.spark.session",
    "ship_packages": "kwire.spark.shipping",
    "register": "kwire.spark.datasource",
    "KwireDataSource": "kwire.spark.datasource",
    "decode_column": "kwire.spark.decode",
    "read_table": "kwire.arrow.reader",
    "message_type": "kwire.arrow.schemas",
    "arrow_schema": "kwire.arrow.schemas",
    "spark_schema": "kwire.spark.schemas",
}

# Imported on first use (PySpark and PyArrow load only then), so there is no __all__: the API
# reference documents each name in its own module.
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
