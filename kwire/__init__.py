"""kwire: a code generator and wire codec for the Apache Kafka protocol.

The parts, each a sub-package, with dependencies pointing one way (a part imports only those
listed before it):

- ``kwire.wire``      the wire core: primitives, the error family and the error-code table, the
                      generated classes' base, Kafka's JSON form, uuids in Kafka's text.
- ``kwire.records``   record batches (v2 and legacy message sets), compression, control records.
- ``kwire.generated`` the codecs generated from kwire's shipped definitions
                      (``from kwire.generated import ApiVersionsResponse``).
- ``kwire.logs``      Kafka's files: KRaft metadata logs and snapshots, coordinator logs, log
                      directories, checkpoints and indexes, ``dump``.
- ``kwire.network``   request/response headers, frames and a correlator, negotiation, SASL, a
                      sans-I/O connection.
- ``kwire.features``  KIP-584/KIP-778: feature levels, metadata.version, bootstrap files.
- ``kwire.metadata``  Kafka's metadata image replayed from a KRaft log and written back as a
                      snapshot at a metadata.version, the quorum, the metadata shell.
- ``kwire.arrow``     Kafka log files as Arrow record batches in this process, and ``kwire
                      decode`` without Spark (the ``arrow`` extra: PyArrow only).
- ``kwire.fuzz``      round-trip and cross-version fuzzing, hostile-input fuzzing.
- ``kwire.testing``   for users' own suites: strategies, round-trip assertions, the pytest plugin.
- ``kwire.spark``     bulk decoding on Apache Spark (the ``spark`` extra).
- ``kwire.generator`` build time (the ``generator`` extra: jinja2, jsonschema), importing only
                      the wire core: ``definitions`` (load and validate), ``emit`` (the
                      codecs), ``records`` (the record decoders), ``evolution`` (compatibility,
                      history, release tables), ``native`` (the compiled builds).
- ``kwire.cli``       the ``kwire`` command (``python -m kwire``).

Nothing in the runtime imports the generator, and ``import kwire`` imports none of the parts.

Where to start:

- a message: ``from kwire.generated import ApiVersionsResponse``; ``ApiVersionsResponse.decode(data,
  version)``, ``obj.encode(version)``, ``obj.to_dict(version)``;
- frames on a connection: ``kwire.network.framing.Correlator``; a small client that negotiates,
  produces and fetches: ``kwire.network.client.KafkaClient``;
- record batches: ``kwire.records.BatchReader``, ``kwire.records.RecordBatchBuilder``;
- KRaft metadata: ``kwire.logs.metadata_log.read_metadata_log``, ``MetadataLogDirectory``;
- many files at once: ``kwire.arrow.iter_record_batches`` and ``kwire.arrow.read_table`` in this
  process, or ``kwire.spark.build_session`` and ``spark.read.format("kwire")`` on Spark;
- errors: everything kwire raises on purpose is a :class:`KwireError` (exported here with its
  subclasses).
"""
from __future__ import annotations

from typing import Any

from kwire.wire.errors import (
    CorruptRecordError,
    DecodeError,
    DecompressionLimitError,
    EncodeError,
    KwireError,
    SchemaError,
    UnsupportedVersionError,
)


def __getattr__(name: str) -> Any:
    # The version is looked up when asked for: importlib.metadata costs more than the rest of
    # ``import kwire.generated`` together (tens of milliseconds).
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("kwire")
        except PackageNotFoundError:  # imported from a source tree that was never installed
            found = "0+unknown"
        globals()["__version__"] = found
        return found
    raise AttributeError(f"module 'kwire' has no attribute {name!r}")


__all__ = [
    "CorruptRecordError",
    "DecodeError",
    "DecompressionLimitError",
    "EncodeError",
    "KwireError",
    "SchemaError",
    "UnsupportedVersionError",
    "__version__",
]
