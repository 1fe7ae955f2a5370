"""The options of a kwire read, parsed once from strings (Spark options) or keywords.

=====================  =========================================================  =============
option                 meaning                                                    default
=====================  =========================================================  =============
path                   a file or directory (``load(path)`` sets it)               required
maxSplitBytes          the most bytes one task reads                              32 MiB
minPartitions          cut the input into at least this many splits               1
maxDecompressedBytes   cap on one batch's decompressed size                       64 MiB
decodeRecords          add record_type/record_version/record_json:                auto
                       ``true``, ``false`` or ``auto`` (when a file is a
                       metadata or coordinator log kwire can decode)
recordType             keep only records of this message and add it as a typed    (none)
                       ``record`` column
package                the generated package recordType is looked up in           generated
skipUndecodable        null decoded columns instead of failing on a record whose  false
                       value does not decode
batchRows              rows per Arrow batch handed to Spark                       32768
verifyCrc              fail on a batch whose CRC fails, with the verdict every    false
                       command gives it (``kwire decode`` sets it unless
                       ``--skip-undecodable``); else its rows say crc_valid false
=====================  =========================================================  =============
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kwire.arrow import logfiles, splits
from kwire.arrow.decoders import decodes_data_records
from kwire.arrow.pieces import DEFAULT_BATCH_ROWS, ReadOptions
from kwire.records.compression import DEFAULT_MAX_DECOMPRESSED_SIZE
from kwire.wire.errors import KwireError


@dataclass(frozen=True)
class ScanOptions:
    """Everything one read needs, from the options; picklable (the message is kept by name)."""

    path: str
    max_split_bytes: int = splits.DEFAULT_SPLIT_BYTES
    min_partitions: int = 1
    max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE
    decode_records: str = "auto"
    record_type: str | None = None
    package: str = "kwire.generated"
    skip_undecodable: bool = False
    batch_rows: int = DEFAULT_BATCH_ROWS
    verify_crc: bool = False

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> ScanOptions:
        given = {str(k).lower(): v for k, v in options.items()}
        path = given.get("path")
        if not path:
            raise KwireError("the kwire data source needs a path: spark.read.format('kwire').load(PATH)")
        decode = str(given.get("decoderecords", "auto")).lower()
        if decode not in ("auto", "true", "false"):
            raise KwireError(f"decodeRecords must be true, false or auto, not {decode!r}")
        return cls(
            path=str(path),
            max_split_bytes=_positive(given, "maxsplitbytes", splits.DEFAULT_SPLIT_BYTES),
            min_partitions=_positive(given, "minpartitions", 1),
            max_decompressed_size=_positive(given, "maxdecompressedbytes", DEFAULT_MAX_DECOMPRESSED_SIZE),
            decode_records=decode,
            record_type=given.get("recordtype") or None,
            package=str(given.get("package", "kwire.generated")),
            skip_undecodable=_boolean(given, "skipundecodable"),
            batch_rows=_positive(given, "batchrows", DEFAULT_BATCH_ROWS),
            verify_crc=_boolean(given, "verifycrc"),
        )

    def files(self) -> list[logfiles.LogFile]:
        return logfiles.discover(self.path)

    def read_options(self, files: list[logfiles.LogFile] | None = None) -> ReadOptions:
        """The reader's options; ``files`` settles ``decodeRecords=auto`` (listed if not given)."""
        decoded = self.decode_records == "true"
        if self.decode_records == "auto":
            kinds = {f.kind for f in (self.files() if files is None else files)}
            decoded = any(decodes_data_records(kind) for kind in kinds)
        options = ReadOptions(
            max_decompressed_size=self.max_decompressed_size,
            batch_rows=self.batch_rows,
            decoded=decoded,
            record_type=self.record_type,
            package=self.package,
            skip_undecodable=self.skip_undecodable,
            verify_crc=self.verify_crc,
        )
        options.typed()  # an unknown recordType fails here, at planning
        return options


def _positive(given: Mapping[str, str], key: str, default: int) -> int:
    text = given.get(key)
    if text is None:
        return default
    try:
        value = int(str(text).strip())
    except ValueError:
        raise KwireError(f"option {key} must be a whole number, not {text!r}") from None
    if value < 1:
        raise KwireError(f"option {key} must be at least 1, not {value}")
    return value


def _boolean(given: Mapping[str, str], key: str) -> bool:
    text = str(given.get(key, "false")).strip().lower()
    if text not in ("true", "false"):
        raise KwireError(f"option {key} must be true or false, not {text!r}")
    return text == "true"
