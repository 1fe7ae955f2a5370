"""Emit kwire's two record decoders from one description of the record layout.

:mod:`kwire.generator.records.layout` says what a record is (its fields in order, their kinds);
this module walks that description once and spells each step for two targets:

* the object decoder, ``read_records`` in :mod:`kwire.records._generated_record_codec`, a wholly
  generated module re-exported by :mod:`kwire.records.record_codec` (a ``Record`` per
  record, keys and values sliced out of the ``bytes``);
* the column decoder, ``ColumnBuilder._add_records`` in :mod:`kwire.records._generated_columns`,
  a wholly generated module whose methods :mod:`kwire.records.column_decoder` takes into its class
  (straight into Arrow-layout buffers; the mypyc build pastes them into that file, plain Python
  runs them from their module);
* and, by :mod:`kwire.generator.records.decoder_c`, the column decoder's C flavour, a generated
  file of its own (``kwire/records/column_decoder_c.c``).

The zigzag varint read inline (:func:`read_zigzag_inline`), the length checks and the error
messages are written here once. The output is committed in files that hold nothing else (named
``_generated_*``, with a header saying so), so that the runtime does not depend on the generator,
mypyc compiles the very text that is tested, and a traceback points at real lines;
``tests/generator/test_record_decoders.py`` fails when the committed text is not what this module
emits. After changing the layout or this module::

    python -m kwire.generator.records.decoders          # rewrite the three generated decoder files
    python -m kwire.generator.native.records           # rebuild the compiled column decoder
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import kwire
from kwire.wire.files import atomic_write

from ..emit.code import Lines, indent
from .decoder_c import C_SOURCE
from .decoder_c import emit as emit_c
from .layout import HEADER, RECORD, Field, Kind, min_size

RECORDS_DIR = Path(kwire.__file__).resolve().parent / "records"


def read_zigzag_inline(target: str, bound: str, long: bool) -> Lines:
    """The one spelling of a record's zigzag varint read: the one- and two-byte cases (nearly every
    length and delta) inline, longer ones by ``kwire.wire.varint.read_zigzag`` up to ``bound``.
    A second byte past the record is caught by the length checks after it, one past the buffer
    as IndexError (a truncated record)."""
    return ["b = data[pos]",
            "if b < 0x80:",
            f"    {target} = (b >> 1) ^ -(b & 1)",
            "    pos += 1",
            "else:",
            "    c = data[pos + 1]",
            "    if c < 0x80:",
            "        b = (b & 0x7F) | (c << 7)",
            f"        {target} = (b >> 1) ^ -(b & 1)",
            "        pos += 2",
            "    else:",
            f"        {target}, pos = read_zigzag(data, pos, {bound}, {long}, report_base)"]


def read_zigzag_call(target: str, bound: str, long: bool) -> Lines:
    """A varint read by the varint module (headers: rare, not worth the inline code)."""
    return [f"{target}, pos = read_zigzag(data, pos, {bound}, {long}, report_base)"]


# ----------------------------------------------------------------------------- targets
# Each target is a table of spellings: what happens to a field's value once the walk below has
# read and checked it. Neither target reads a byte itself.


class ObjectTarget:
    """``read_records``: locals per field, a ``Record`` per record."""

    int_type = "int"
    path = RECORDS_DIR / "_generated_record_codec.py"  # wholly generated: see object_module()

    def record_head(self) -> Lines:
        return ["def read_records(",
                "    data: bytes,",
                "    pos: int,",
                "    limit: int,",
                "    count: int,",
                "    base_offset: int,",
                "    base_timestamp: int,",
                "    report_base: int = 0,",
                ") -> list[Record]:",
                '    """Decode ``count`` records filling ``data[pos:limit]`` exactly.',
                "",
                "    ``data`` must be ``bytes`` (slices of it are the keys and values). Errors carry",
                "    ``offset = report_base + position in data`` so callers can point into their own buffer.",
                '    """',
                "    records: list[Record] = []",
                "    append = records.append",
                "    new_record = Record"]

    def loop(self) -> Lines:
        return ["for _ in range(count):"]

    def keeps(self, field: Field) -> bool:
        return True

    def int8(self, field: Field) -> Lines:
        return [f"{field.name} = data[pos]"]

    def present(self, field: Field, where: str) -> Lines:
        if field.kind is Kind.STRING:
            return ["try:",
                    f"    {field.name} = data[pos:stop].decode(\"utf-8\")",
                    "except UnicodeDecodeError as exc:",
                    f"    raise DecodeError(f\"{field.what} is not UTF-8: {{exc}}\", offset=report_base + pos)"
                    " from None"]
        return [f"{field.name} = data[pos:stop]"]

    def null(self, field: Field, where: str) -> Lines:
        return [f"{field.name} = None"]

    def after(self, field: Field, where: str) -> Lines:
        return []

    def no_headers(self) -> Lines:
        return ["headers: list[tuple[str, bytes | None]] = []"]

    def read_headers(self) -> Lines:
        return ["headers = []",
                "pos = _read_headers(headers, data, pos, end, header_count, report_base, count_pos)"]

    def after_headers(self) -> Lines:
        return []

    def record_end(self) -> Lines:
        return ["append(",
                "    new_record(",
                "        base_offset + offset_delta,",
                "        base_timestamp + timestamp_delta,",
                "        key,",
                "        value,",
                "        headers,",
                "        offset_delta,",
                "        timestamp_delta,",
                "        attributes,",
                "    )",
                ")"]

    def record_tail(self) -> Lines:
        return ["return records"]

    def header_head(self) -> Lines:
        return ["def _read_headers(headers: list[tuple[str, bytes | None]], data: bytes, pos: int, end: int,"
                " count: int,",
                "                  report_base: int, count_pos: int) -> int:",
                '    """Append one record\'s ``count`` headers to ``headers``; they must end at ``end``;'
                ' return ``end``."""']

    def header_start(self) -> Lines:
        return []

    def header_end(self) -> Lines:
        return ["headers.append((key, value))"]

    def header_tail(self) -> Lines:
        return []


class ColumnTarget:
    """``ColumnBuilder._add_records``: every field appended to its column buffers, no object per
    record. Buffers are named after the fields: ``{name}_data``, ``{name}_ends``, ``{name}_nulls``
    (``header_`` before them for a header's)."""

    int_type = "i64"
    path = RECORDS_DIR / "_generated_columns.py"  # wholly generated: see columns_module()

    def record_head(self) -> Lines:
        binaries = [f for f in RECORD if f.kind is Kind.BYTES]
        return ["def _add_records(self, data: bytes, pos: i64, limit: i64, count: i64, base_offset: i64,",
                "                 base_timestamp: i64, append_time: i64, log_append_time: bool,"
                " report_base: i64) -> None:",
                "    offsets, timestamps = self.offsets, self.timestamps",
                *[f"    {self._buffers(f, '')}" for f in binaries],
                "    header_ends = self.header_ends",
                "    # INT64_MAX and INT64_MIN are too wide for mypyc's tagged ints: as constants they would be",
                "    # unboxed on every record (~170 instructions), as locals once a batch",
                "    int64_max: i64 = INT64_MAX",
                "    int64_min: i64 = INT64_MIN",
                "    row = self.rows",
                "    n: i64 = 0",
                "    b: i64 = 0",
                "    c: i64 = 0"]

    @staticmethod
    def _buffers(field: Field, prefix: str) -> str:
        names = [f"{field.name}_ends", f"{field.name}_data"]
        names += [f"{field.name}_nulls"] if field.kind is Kind.BYTES else []
        return f"{', '.join(names)} = {', '.join(f'self.{prefix}{name}' for name in names)}"

    def loop(self) -> Lines:
        return ["while n < count:"]

    def keeps(self, field: Field) -> bool:
        return field.kind is not Kind.INT8  # a record's attributes: Kafka defines none of their bits

    def int8(self, field: Field) -> Lines:
        raise AssertionError(f"{field.name} is not kept")

    def present(self, field: Field, where: str) -> Lines:
        check = []
        if field.kind is Kind.STRING:
            check = ["bad = utf8_error(data, pos, stop)",
                     "if bad != UTF8_VALID:",
                     f"    raise DecodeError(f\"{field.what} is not UTF-8:"
                     " invalid byte 0x{data[bad]:02x} at its byte "
                     "{bad - pos}\",",
                     "                      offset=report_base + pos)"]
        return check + [f"{field.name}_data.write(data[pos:stop])"]

    def null(self, field: Field, where: str) -> Lines:
        return [f"write_i32_le({field.name}_nulls, {where})"]

    def after(self, field: Field, where: str) -> Lines:
        return [f"write_i32_le({field.name}_ends, len({field.name}_data))"]

    def no_headers(self) -> Lines:
        return []

    def read_headers(self) -> Lines:
        return ["pos = self._add_headers(data, pos, end, header_count, report_base, count_pos)"]

    def after_headers(self) -> Lines:
        return ["write_i32_le(header_ends, self.header_count)"]

    def record_end(self) -> Lines:
        return ["if base_offset > int64_max - offset_delta if offset_delta > 0"
                " else base_offset < int64_min - offset_delta:",
                "    raise DecodeError(f\"offset {base_offset} + {offset_delta} is out of int64 range\",",
                "                      offset=report_base + rec_start)",
                "write_i64_le(offsets, base_offset + offset_delta)",
                "if log_append_time:",
                "    write_i64_le(timestamps, append_time)",
                "elif (base_timestamp > int64_max - timestamp_delta if timestamp_delta > 0",
                "      else base_timestamp < int64_min - timestamp_delta):",
                "    raise DecodeError(f\"timestamp {base_timestamp} + {timestamp_delta} is out of int64 range\",",
                "                      offset=report_base + rec_start)",
                "else:",
                "    write_i64_le(timestamps, base_timestamp + timestamp_delta)",
                "row += 1",
                "n += 1"]

    def record_tail(self) -> Lines:
        return ["self.rows = row"]

    def header_head(self) -> Lines:
        return ["def _add_headers(self, data: bytes, pos: i64, end: i64, count: i64, report_base: i64,"
                " count_pos: i64) -> i64:",
                '    """Append one record\'s ``count`` headers, which must end at ``end``; return ``end``."""']

    def header_start(self) -> Lines:
        return [self._buffers(f, "header_") for f in HEADER] + ["header = self.header_count"]

    def header_end(self) -> Lines:
        return ["header += 1"]

    def header_tail(self) -> Lines:
        return ["self.header_count = header"]


Target = ObjectTarget | ColumnTarget
TARGETS: tuple[Target, ...] = (ObjectTarget(), ColumnTarget())



# ------------------------------------------------------------------------- the walk


def length_prefixed(field: Field, target: Target, read: Lines, where: str) -> Lines:
    """A Bytes or String field: its varint length is in ``read``; checked against the record's
    ``end`` before anything is taken."""
    overrun = [f"    raise _overrun(\"{field.what}\", size, end - pos, report_base + pos)"]
    negative = [f"    raise _negative(\"{field.what}\", size, report_base + pos)"]
    if field.kind is Kind.STRING:
        lines = [*read,
                 "if size < 0:", *negative,
                 "stop = pos + size",
                 "if stop > end:", *overrun,
                 *target.present(field, where),
                 "pos = stop"]
    else:
        lines = [*read,
                 "if size >= 0:",
                 "    stop = pos + size",
                 "    if stop > end:", *indent(overrun),
                 *indent(target.present(field, where)),
                 "    pos = stop",
                 "elif size == -1:",
                 *indent(target.null(field, where)),
                 "else:", *negative]
    return lines + target.after(field, where)


def record_field(field: Field, target: Target) -> Lines:
    """The lines that read one field of RECORD inside the loop over records."""
    lines = [f"# -- {field.name.replace('_', ' ')}"]
    if field.kind is Kind.LENGTH:
        after = min_size(RECORD) - 1
        return lines + [*read_zigzag_inline(field.name, "limit", False),
                        f"end = pos + {field.name}",
                        f"if {field.name} < {after} or end > limit:"
                        f"  # {after}: the one-byte minimum of every field after it",
                        f"    raise DecodeError(f\"{field.what} {{{field.name}}}"
                        " does not fit the {limit - pos} bytes left\",",
                        "                      offset=report_base + rec_start)"]
    if field.kind is Kind.INT8:
        if not target.keeps(field):
            return lines + ["pos += 1  # not kept"]
        return lines + [*target.int8(field), "pos += 1"]
    if field.kind in (Kind.VARINT, Kind.VARLONG):
        return lines + read_zigzag_inline(field.name, "end", field.long)
    if field.kind is Kind.BYTES:
        return lines + length_prefixed(field, target, read_zigzag_inline("size", "end", False), "row")
    if field.kind is Kind.HEADERS:
        return lines + ["if data[pos] == 0:  # no headers: the usual case",
                        "    pos += 1",
                        *indent(target.no_headers()),
                        "else:",
                        "    count_pos = pos",
                        "    header_count, pos = read_zigzag(data, pos, end, False, report_base)",
                        *indent(target.read_headers()),
                        *target.after_headers()]
    raise AssertionError(f"a record has no {field.kind} field")


def record_decoder(target: Target) -> Lines:
    body = [line for field in RECORD for line in record_field(field, target)]
    loop = [*target.loop(),
            "    rec_start = pos",
            *indent(body),
            "    if pos != end:",
            "        raise DecodeError(f\"record fields take {pos - rec_start} bytes,"
            " its length says {end - rec_start}\",",
            "                          offset=report_base + rec_start)",
            *indent(target.record_end())]
    return [*target.record_head(),
            "    rec_start = pos",
            "    try:",
            *indent(loop, 2),
            "    except IndexError:",
            "        raise DecodeError(\"record is truncated\", offset=report_base + rec_start) from None",
            "    if pos != limit:",
            "        raise CorruptRecordError(f\"{limit - pos} bytes left over after the batch's {count} records\",",
            "                                 offset=report_base + pos)",
            *indent(target.record_tail())]


def header_decoder(target: Target) -> Lines:
    smallest = min_size(HEADER)
    body = []
    for field in HEADER:
        body += [f"# -- {field.what}",
                 *length_prefixed(field, target, read_zigzag_call("size", "end", False), "header")]
    return [*target.header_head(),
            f"    # Each header takes at least {smallest} bytes, which bounds a hostile count before the loop.",
            f"    if count < 0 or count * {smallest} > end - pos:",
            "        raise DecodeError(f\"header count {count} does not fit the record\","
            " offset=report_base + count_pos)",
            *indent(target.header_start()),
            "    for _ in range(count):",
            *indent(body, 2),
            *indent(target.header_end(), 2),
            *indent(target.header_tail()),
            "    if pos != end:",
            "        raise DecodeError(\"record headers do not end where the record does\", offset=report_base + pos)",
            "    return pos"]


def error_helpers(target: Target) -> Lines:
    n = target.int_type
    return [f"def _overrun(what: str, size: {n}, left: {n}, offset: {n}) -> DecodeError:",
            "    return DecodeError(f\"{what} length {size} exceeds the {left} bytes left in the record\","
            " offset=offset)",
            "",
            "",
            f"def _negative(what: str, size: {n}, offset: {n}) -> DecodeError:",
            "    return DecodeError(f\"{what} length {size} is negative\", offset=offset)"]


#: The first lines of a wholly generated Python module (the object decoder's).
MODULE_HEADER = ['"""Generated by `python -m kwire.generator.records.decoders` from generator/records/layout.py: do '
                 'not edit.',
                 "",
                 "The object decoder of magic 2 records (``read_records``), re-exported by",
                 ":mod:`kwire.records.record_codec`, which documents the wire layout.",
                 '"""']


def object_module() -> str:
    """The whole text of ``kwire/records/_generated_record_codec.py``."""
    target = ObjectTarget()
    return "\n".join([*MODULE_HEADER,
                      "from __future__ import annotations",
                      "",
                      "from kwire.records.record import Record",
                      "from kwire.wire.errors import CorruptRecordError, DecodeError",
                      "from kwire.wire.varint import read_zigzag",
                      "",
                      "",
                      *record_decoder(target), "", "", *header_decoder(target), "", "",
                      *error_helpers(target), ""])


#: Where the definitions that the mypyc build pastes into column_decoder.py begin (see columns_module).
PASTE_BELOW = "# ---- pasted into column_decoder.py when mypyc compiles it (kwire.generator.native.records) ----"

def columns_module() -> str:
    """The whole text of ``kwire/records/_generated_columns.py``: ``ColumnBuilder``'s record loop
    (``_add_records``, ``_add_headers``: taken into the class by an import in its body) and its
    helpers. Plain Python runs it from here; the mypyc build pastes what follows PASTE_BELOW into
    column_decoder.py (kwire.generator.native.records.paste_record_loop), the methods into the class.
    Only ``i64 = int`` stays behind."""
    target = ColumnTarget()
    return "\n".join(['"""Generated by `python -m kwire.generator.records.decoders` from generator/records/layout.py: '
                      'do not edit.',
                      "",
                      "The record loop of :class:`kwire.records.column_decoder.ColumnBuilder`: ``_add_records`` and",
                      "``_add_headers`` are its methods (imported into its class body), the functions after them its",
                      "helpers. Plain Python runs them from here; the mypyc build pastes the definitions below the",
                      "marker line into column_decoder.py in place of those imports, where ``i64`` is a machine "
                      "integer.",
                      '"""',
                      "from __future__ import annotations",
                      "",
                      "from kwire.records.byte_writer import write_i32_le, write_i64_le",
                      "from kwire.wire.errors import CorruptRecordError, DecodeError",
                      "from kwire.wire.primitives import INT64_MAX, INT64_MIN",
                      "",
                      "# isort: split",  # import sorting must not move the imports above below the marker
                      PASTE_BELOW,
                      "from kwire.records.utf8_check import UTF8_VALID, utf8_error  # pasted in when compiled "
                      "(native.records)",
                      "from kwire.wire.varint import read_zigzag  # pasted in when compiled "
                      "(kwire.generator.native.inline)",
                      "",
                      "i64 = int  # not pasted: the compiled copy's i64 is mypyc's machine integer",
                      "",
                      "",
                      *record_decoder(target), "", "", *header_decoder(target), "", "",
                      *error_helpers(target), ""])


def stale_files(write: bool) -> list[Path]:
    """The generated decoder files whose text differs from the generator's; rewritten when ``write``."""
    stale = []
    for path, text in ((C_SOURCE, emit_c()), (ObjectTarget.path, object_module()),
                       (ColumnTarget.path, columns_module())):
        if not path.is_file() or path.read_text() != text:
            stale.append(path)
            if write:
                atomic_write(path, text, force=True)
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kwire.generator.records.decoders",
        description="Rewrite kwire's generated record decoder files from generator/records/layout.py.",
        epilog="examples:\n  python -m kwire.generator.records.decoders\n"
               "  python -m kwire.generator.records.decoders --check",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when a file is out of date")
    parser.add_argument("-q", "--quiet", action="store_true")
    args = parser.parse_args(argv)
    stale = stale_files(write=not args.check)
    if not args.quiet:
        verb = "out of date" if args.check else "rewritten"
        for path in stale:
            print(f"{verb}: {path}")
        if not stale:
            print("record decoders: up to date")
    if (ColumnTarget.path in stale or C_SOURCE in stale) and not args.check:
        print("then rebuild the compiled decoder: python -m kwire.generator.native.records", file=sys.stderr)
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
