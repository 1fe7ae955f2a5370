"""kwire: a code generator and wire codec for the Apache Kafka protocol.

The parts, each a sub-package, with dependencies pointing one way (a part imports only those
listed before it):

- ``kwire.wire``      the wire core: primitives, the error family, the generated classes' base,
                      Kafka's JSON form. Imports neither the generator nor the generated codecs.
- ``kwire.generated`` the codecs generated from kwire's shipped definitions
                      (``from kwire.generated import ApiVersionsResponse``).
- ``kwire.records``   record batches (v2 and legacy message sets), compression, control records.
- ``kwire.logs``      KRaft metadata logs, snapshots, coordinator logs, log directories, ``dump``.
- ``kwire.network``   request/response headers, frames and a correlator, an example client.
- ``kwire.fuzz``      round-trip and cross-version fuzzing, hostile-input fuzzing.
- ``kwire.spark``     bulk decoding on Apache Spark (the ``spark`` extra).
- ``kwire.cli``       the ``kwire`` command (``python -m kwire``).

``kwire.generator`` (build time: load and validate definitions, emit code, check compatibility)
depends on the wire core only; nothing in the runtime imports it.
"""
from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version as _distribution_version

from kwire.wire.errors import (
    CorruptRecordError,
    DecodeError,
    DecompressionLimitError,
    EncodeError,
    KwireError,
    SchemaError,
    UnsupportedVersionError,
)

try:
    __version__ = _distribution_version("kwire")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

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
