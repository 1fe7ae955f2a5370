"""Emit the C flavour of the record column decoder from the one description of the record layout.

The same walk over :data:`~kwire.generator.records.layout.RECORD` and ``HEADER`` as
:mod:`kwire.generator.records.decoders` (whose Python decoders are its fallbacks), spelt in C
through the CPython API: keys and values are copied with ``memcpy`` straight from the input
buffer into the builder's ``bytearray`` columns, the integer columns are gathered in C arrays and
appended once a batch (``array.frombytes``), and every check, message and byte offset is the
Python decoders' (``tests/records/test_columns.py`` holds the three to each other, damaged input
included). The output is the generated file :data:`C_SOURCE`, committed like the Python
decoders; ``python -m kwire.generator.records.decoders`` writes it, and
``python -m kwire.generator.native.records`` compiles it (``kwire.records._column_decoder_c``).

The module it makes subclasses the plain-Python ``ColumnBuilder`` (through
:mod:`kwire.records.column_handover`, whose ``finish`` hands the buffers over without copying
them) and replaces only ``add_records`` (whole batches): single rows, ``finish`` and
``RecordColumns`` stay the Python source's.
"""
from __future__ import annotations

from pathlib import Path

import kwire

from ..emit.code import Lines, indent
from .layout import HEADER, RECORD, Field, Kind, min_size

C_SOURCE = Path(kwire.__file__).resolve().parent / "records" / "column_decoder_c.c"
MODULE = "_column_decoder_c"

# The writers of the Python ColumnBuilder, in ColumnBuilder._writers() order, and which of them
# hold bytes (bytearrays, appended to in place) rather than int32/int64 values (arrays, gathered).
COLUMNS: tuple[tuple[str, str], ...] = (
    ("offsets", "i64"), ("timestamps", "i64"),
    ("key_ends", "i32"), ("key_data", "bytes"), ("key_nulls", "i32"),
    ("value_ends", "i32"), ("value_data", "bytes"), ("value_nulls", "i32"),
    ("header_ends", "i32"),
    ("header_key_ends", "i32"), ("header_key_data", "bytes"),
    ("header_value_ends", "i32"), ("header_value_data", "bytes"), ("header_value_nulls", "i32"),
)


def c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def read_zigzag_inline(target: str, bound: str, long: bool) -> Lines:
    """The one- and two-byte cases inline, longer ones by ``read_zigzag`` (as the Python decoders
    do; a byte past the buffer is a truncated record, one past ``bound`` the later checks')."""
    return ["if (pos >= n) goto truncated;",
            "b = d[pos];",
            "if (b < 0x80) {",
            f"    {target} = (b >> 1) ^ -(b & 1);",
            "    pos += 1;",
            "} else {",
            "    if (pos + 1 >= n) goto truncated;",
            "    c = d[pos + 1];",
            "    if (c < 0x80) {",
            "        b = (b & 0x7F) | (c << 7);",
            f"        {target} = (b >> 1) ^ -(b & 1);",
            "        pos += 2;",
            "    } else {",
            f"        ZIGZAG({target}, {bound}, {int(long)});",
            "    }",
            "}"]


def length_prefixed(field: Field, column: str, where: str, read: Lines, reserved: bool = False) -> Lines:
    """A Bytes or String field appended to ``column``'s data, ends and nulls. ``reserved``: the
    batch reserved room for every value of the column (a record's key and value: together
    they lie inside the batch's records, so each column needs at most that), so no check."""
    what = c_string(field.what)
    overrun = [(f"    RAISE_AT(report_base + pos, \"%s length %lld exceeds the %lld bytes left in the record\", "
               f"{what}, (long long)size, (long long)(end - pos));")]
    negative = [f"    RAISE_AT(report_base + pos, \"%s length %lld is negative\", {what}, (long long)size);"]
    take = ([f"PUT_BYTES(&{column}_data, d + pos, size);"] if reserved else
            [f"if (append_bytes(&{column}_data, d + pos, size) < 0) goto error;"])
    if field.kind is Kind.STRING:
        take = ["bad = utf8_error(d, pos, stop);",
                "if (bad >= 0)",
                (f"    RAISE_AT(report_base + pos, \"%s is not UTF-8: invalid byte 0x%02x at its byte %lld\", {what}, "
                "(unsigned)d[bad], (long long)(bad - pos));"),
                *take]
        lines = [*read,
                 "if (size < 0)", *negative,
                 "stop = pos + size;",
                 "if (stop > end)", *overrun,
                 *take,
                 "pos = stop;"]
    else:
        lines = [*read,
                 "if (size >= 0) {",
                 "    stop = pos + size;",
                 "    if (stop > end)", *indent(overrun),
                 *indent(take),
                 "    pos = stop;",
                 "} else if (size == -1) {",
                 f"    if (push_i32(&{column}_nulls, {where}) < 0) goto error;",
                 "} else {",
                 *indent(negative),
                 "}"]
    if reserved:
        return lines + [f"PUT_I32(&{column}_ends, {column}_data.len);"]
    return lines + [f"if (push_i32(&{column}_ends, {column}_data.len) < 0) goto error;"]


def record_field(field: Field) -> Lines:
    lines = [f"/* -- {field.name.replace('_', ' ')} */"]
    if field.kind is Kind.LENGTH:
        after = min_size(RECORD) - 1
        return lines + [*read_zigzag_inline(field.name, "limit", False),
                        f"end = pos + {field.name};",
                        f"if ({field.name} < {after} || end > limit)  /* {after}: one byte for every field after it */",
                        (f"    RAISE_AT(report_base + rec_start, \"{field.what} %lld does not fit the %lld "
                         "bytes left\", "
                        f"(long long){field.name}, (long long)(limit - pos));")]
    if field.kind is Kind.INT8:
        return lines + ["pos += 1;  /* not kept */"]
    if field.kind in (Kind.VARINT, Kind.VARLONG):
        return lines + read_zigzag_inline(field.name, "end", field.long)
    if field.kind is Kind.BYTES:
        return lines + length_prefixed(field, field.name, "row", read_zigzag_inline("size", "end", False), True)
    if field.kind is Kind.HEADERS:
        return lines + ["if (pos >= n) goto truncated;",
                        "if (d[pos] == 0) {  /* no headers: the usual case */",
                        "    pos += 1;",
                        "} else {",
                        "    count_pos = pos;",
                        "    ZIGZAG(header_count, end, 0);",
                        "    HEADERS();",
                        "}",
                        "PUT_I32(&header_ends, header);"]
    raise AssertionError(f"a record has no {field.kind} field")


def header_fields() -> Lines:
    smallest = min_size(HEADER)
    body: Lines = []
    for field in HEADER:
        body += [f"/* -- {field.what} */", "ZIGZAG(size, end, 0);",
                 *length_prefixed(field, f"header_{field.name}", "header", [])]
    return [f"/* Each header takes at least {smallest} bytes, which bounds a hostile count before the loop. */",
            f"if (header_count < 0 || header_count * {smallest} > end - pos)",
            "    RAISE_AT(report_base + count_pos, \"header count %lld does not fit the record\", "
            "(long long)header_count);",
            "for (k = 0; k < header_count; k++) {",
            *indent(body),
            "    header += 1;",
            "}",
            "if (pos != end)",
            "    RAISE_AT(report_base + pos, \"record headers do not end where the record does\");"]


def record_loop() -> Lines:
    body = [line for field in RECORD for line in record_field(field)]
    return ["while (k_rec < count) {",
            "    rec_start = pos;",
            *indent(body),
            "    if (pos != end)",
            ("        RAISE_AT(report_base + rec_start, \"record fields take %lld bytes, its length says %lld\", "
            "(long long)(pos - rec_start), (long long)(end - rec_start));"),
            "    if (offset_delta > 0 ? base_offset > INT64_MAX - offset_delta "
            ": base_offset < INT64_MIN - offset_delta)",
            ("        RAISE_AT(report_base + rec_start, \"offset %lld + %lld is out of int64 range\", "
            "(long long)base_offset, (long long)offset_delta);"),
            "    PUT_I64(&offsets, base_offset + offset_delta);",
            "    if (log_append_time) {",
            "        PUT_I64(&timestamps, append_time);",
            "    } else if (timestamp_delta > 0 ? base_timestamp > INT64_MAX - timestamp_delta",
            "                                   : base_timestamp < INT64_MIN - timestamp_delta) {",
            ("        RAISE_AT(report_base + rec_start, \"timestamp %lld + %lld is out of int64 range\", "
            "(long long)base_timestamp, (long long)timestamp_delta);"),
            "    } else {",
            "        PUT_I64(&timestamps, base_timestamp + timestamp_delta);",
            "    }",
            "    row += 1;",
            "    k_rec += 1;",
            "}",
            "if (pos != limit)",
            ("    RAISE_CORRUPT(report_base + pos, \"%lld bytes left over after the batch's %lld records\", "
            "(long long)(limit - pos), (long long)count);")]


def emit() -> str:
    """The C source of ``kwire.records._column_decoder_c``."""
    declare = [f"Column {name};" for name, _ in COLUMNS]
    table = [f"    &{name}," for name, _ in COLUMNS]
    kinds = [f"    {'KIND_BYTES' if kind == 'bytes' else 'KIND_I64' if kind == 'i64' else 'KIND_I32'},"
             for _, kind in COLUMNS]
    names = [f"    {c_string(name)}," for name, _ in COLUMNS]
    headers_macro = " \\\n".join(["#define HEADERS() do {", *indent(header_fields()), "} while (0)"])
    lines = [
        "/* Generated by `python -m kwire.generator.records.decoders` from generator/records/layout.py",
        "   (generator/records/decoder_c.py): do not edit. The C flavour of kwire.records.column_decoder. */",
        PRELUDE.replace("@NCOLUMNS@", str(len(COLUMNS))),
        "static const int column_kind[NCOLUMNS] = {", *kinds, "};",
        "static const char *const column_name[NCOLUMNS] = {", *names, "};",
        "",
        headers_macro,
        "",
        "/* add_records(builder, data, pos, limit, count, base_offset, base_timestamp, append_time,",
        "               log_append_time, report_base): ColumnBuilder.add_records */",
        "static PyObject *",
        "add_records(PyObject *module, PyObject *const *args, Py_ssize_t nargs)",
        "{",
        "    PyObject *builder;",
        "    Py_buffer view;",
        "    long long pos, limit, count, base_offset, base_timestamp, append_time, report_base;",
        "    int log_append_time;",
        "    if (nargs != 10) {",
        "        PyErr_SetString(PyExc_TypeError, \"add_records takes 10 arguments\");",
        "        return NULL;",
        "    }",
        "    builder = args[0];",
        "    if (parse_i64(args[2], &pos) < 0 || parse_i64(args[3], &limit) < 0 || parse_i64(args[4], &count) < 0",
        "        || parse_i64(args[5], &base_offset) < 0 || parse_i64(args[6], &base_timestamp) < 0",
        "        || parse_i64(args[7], &append_time) < 0 || parse_i64(args[9], &report_base) < 0)",
        "        return NULL;",
        "    log_append_time = PyObject_IsTrue(args[8]);",
        "    if (log_append_time < 0)",
        "        return NULL;",
        "    if (PyObject_GetBuffer(args[1], &view, PyBUF_SIMPLE) < 0)",
        "        return NULL;",
        "    {",
        *indent([
            line for line in [
                *declare,
                "Column *const all[NCOLUMNS] = {",
                *table,
                "};",
                "const unsigned char *d = (const unsigned char *)view.buf;",
                "const long long n = view.len;",
                "long long b = 0, c = 0, k = 0, k_rec = 0, rec_start = pos, end = 0, stop = 0, size = 0, bad = 0;",
                "long long length = 0, timestamp_delta = 0, offset_delta = 0, header_count = 0, count_pos = 0;",
                "long long row, header;",
                "int status = -1;",
                "if (open_columns(builder, all, column_kind, column_name) < 0)",
                "    goto error;",
                "if (get_count(builder, str_rows, &row) < 0 || get_count(builder, str_header_count, &header) < 0)",
                "    goto error;",
                "if (!(0 <= pos && pos <= limit && limit <= n))",
                ("    RAISE_AT(report_base + pos, \"region %lld..%lld is outside the %lld-byte buffer\", "
                "(long long)pos, (long long)limit, (long long)n);"),
                "if (count < 0 || count > (limit - pos) / MIN_RECORD_SIZE)",
                ("    RAISE_CORRUPT(report_base + pos, \"%lld records cannot fit in %lld bytes\", "
                "(long long)count, (long long)(limit - pos));"),
                "if (key_data.len + value_data.len + header_key_data.len + header_value_data.len + (limit - pos) "
                "> INT32_MAX)",
                "    RAISE_AT(report_base + pos, \"more than 2 GiB of keys, values and headers for one set of "
                "Arrow arrays\");",
                "if (reserve(&offsets, 8 * count) < 0 || reserve(&timestamps, 8 * count) < 0",
                "    || reserve(&key_ends, 4 * count) < 0 || reserve(&value_ends, 4 * count) < 0",
                "    || reserve(&header_ends, 4 * count) < 0",
                "    /* keys and values take less than the records do: room for them at once (no reallocation",
                "       in the loop), at most the batch's size each, which the doubling amortizes over batches */",
                "    || reserve(&key_data, limit - pos) < 0 || reserve(&value_data, limit - pos) < 0)",
                "    goto error;",
                *record_loop(),
                "if (close_columns(all, column_kind) < 0)",
                "    goto error;",
                "if (set_count(builder, str_rows, row) < 0 || set_count(builder, str_header_count, header) < 0)",
                "    goto error;  /* (only a failing attribute store: the builder has no property there) */",
                "status = 0;",
                "goto done;",
                "truncated:",
                "RAISE_AT(report_base + rec_start, \"record is truncated\");",
                "error:",
                "rollback_columns(all, column_kind);",
                "done:",
                "free_columns(all);",
                "PyBuffer_Release(&view);",
                "if (status < 0)",
                "    return NULL;",
                "Py_RETURN_NONE;",
            ]], 2),
        "    }",
        "}",
        "",
        POSTLUDE,
    ]
    return "\n".join(lines).rstrip("\n") + "\n"


PRELUDE = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NCOLUMNS @NCOLUMNS@
#define MIN_RECORD_SIZE 7
enum { KIND_BYTES, KIND_I32, KIND_I64 };

static PyObject *DecodeError, *CorruptRecordError;
static PyObject *str_rows, *str_header_count, *str_frombytes, *str_offset, *str_handed_over, *str_take_back;

/* One column of the builder during a batch: a bytearray written in place (keys, values, header
   keys and values: memcpy from the input), or an int32/int64 array whose values are gathered
   here and appended once at the end (array has no C API to append to). */
typedef struct {
    PyObject *target;   /* borrowed from the builder's attribute, kept alive by the reference below */
    PyObject *owned;
    char *p;            /* bytes: the bytearray's buffer; ints: the gathered values */
    Py_ssize_t len;     /* bytes: the bytearray's length; ints: bytes gathered */
    Py_ssize_t cap;
    Py_ssize_t start;   /* the bytearray's length before the batch */
} Column;

/* A DecodeError (CorruptRecordError) with ``offset=``, the message as the Python decoders word it. */
static void
raise_at(PyObject *type, long long offset, const char *format, ...)
{
    char message[512];
    va_list va;
    PyObject *text, *args = NULL, *kwargs = NULL, *off = NULL, *err;
    va_start(va, format);
    vsnprintf(message, sizeof message, format, va);
    va_end(va);
    text = PyUnicode_FromString(message);
    if (text == NULL)
        return;
    args = PyTuple_Pack(1, text);
    kwargs = PyDict_New();
    off = PyLong_FromLongLong(offset);
    if (args != NULL && kwargs != NULL && off != NULL && PyDict_SetItem(kwargs, str_offset, off) == 0) {
        err = PyObject_Call(type, args, kwargs);
        if (err != NULL) {
            PyErr_SetObject(type, err);
            Py_DECREF(err);
        }
    }
    Py_DECREF(text);
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    Py_XDECREF(off);
}

#define RAISE_AT(offset, ...) do { raise_at(DecodeError, (offset), __VA_ARGS__); goto error; } while (0)
#define RAISE_CORRUPT(offset, ...) do { raise_at(CorruptRecordError, (offset), __VA_ARGS__); goto error; } while (0)

/* kwire.wire.varint.read_zigzag: 0, or -1 with DecodeError set, or -2 when it reads past the
   buffer (the Python decoders' IndexError: a truncated record). */
static int
read_zigzag(const unsigned char *d, long long n, long long *pos_io, long long end, int is_long,
            long long report_base, long long *value)
{
    long long pos = *pos_io, start = pos, last_shift = is_long ? 63 : 28, top = is_long ? 0x01 : 0x0F;
    unsigned long long raw = 0;
    long long shift = 0, b;
    for (;;) {
        if (pos >= end) {
            raise_at(DecodeError, report_base + start, "varint runs past the end of its record");
            return -1;
        }
        if (pos >= n)
            return -2;
        b = d[pos];
        pos += 1;
        if (shift == last_shift) {
            if (b >= 0x80) {
                raise_at(DecodeError, report_base + start, "varint is longer than %lld bytes", last_shift / 7 + 1);
                return -1;
            }
            if (b > top) {
                raise_at(DecodeError, report_base + start, "varint is out of %s range", is_long ? "int64" : "int32");
                return -1;
            }
            *value = (long long)(((raw >> 1) | ((unsigned long long)b << (shift - 1))) ^ (0ULL - (raw & 1)));
            *pos_io = pos;
            return 0;
        }
        raw |= (unsigned long long)(b & 0x7F) << shift;
        if (b < 0x80) {
            *value = (long long)((raw >> 1) ^ (0ULL - (raw & 1)));
            *pos_io = pos;
            return 0;
        }
        shift += 7;
    }
}

#define ZIGZAG(target, bound, is_long) do { \
    int zz_ = read_zigzag(d, n, &pos, (bound), (is_long), report_base, &(target)); \
    if (zz_ == -2) goto truncated; \
    if (zz_ < 0) goto error; \
} while (0)

/* Where d[pos:stop] stops being well-formed UTF-8 (Unicode's table 3-7), or -1 when all of it is:
   kwire.records.utf8_check.utf8_error. */
static long long
utf8_error(const unsigned char *d, long long pos, long long stop)
{
    while (pos < stop) {
        long long b = d[pos], low = 0x80, high = 0xBF, follow, k;
        if (b < 0x80) {
            pos += 1;
            continue;
        }
        if (0xC2 <= b && b <= 0xDF) {
            follow = 1;
        } else if (0xE0 <= b && b <= 0xEF) {
            follow = 2;
            if (b == 0xE0)
                low = 0xA0;
            else if (b == 0xED)
                high = 0x9F;
        } else if (0xF0 <= b && b <= 0xF4) {
            follow = 3;
            if (b == 0xF0)
                low = 0x90;
            else if (b == 0xF4)
                high = 0x8F;
        } else {
            return pos;
        }
        if (pos + follow >= stop)
            return pos;
        if (d[pos + 1] < low || d[pos + 1] > high)
            return pos;
        for (k = 2; k <= follow; k++)
            if (d[pos + k] < 0x80 || d[pos + k] > 0xBF)
                return pos;
        pos += follow + 1;
    }
    return -1;
}

static int
parse_i64(PyObject *obj, long long *out)
{
    *out = PyLong_AsLongLong(obj);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static int
get_count(PyObject *builder, PyObject *name, long long *out)
{
    PyObject *value = PyObject_GetAttr(builder, name);
    int status;
    if (value == NULL)
        return -1;
    status = parse_i64(value, out);
    Py_DECREF(value);
    return status;
}

static int
set_count(PyObject *builder, PyObject *name, long long value)
{
    PyObject *obj = PyLong_FromLongLong(value);
    int status;
    if (obj == NULL)
        return -1;
    status = PyObject_SetAttr(builder, name, obj);
    Py_DECREF(obj);
    return status;
}

/* Room for ``more`` bytes past ``len``, doubling: a column written key by key is resized a few
   times a batch, and a builder that gathers many batches copies each byte about once. A
   bytearray's length is set to its room while the batch is written (close_columns sets it back). */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

static int
reserve(Column *col, Py_ssize_t more)
{
    Py_ssize_t want = col->len + more, cap = 2 * col->cap > want ? 2 * col->cap : want;
    if (want <= col->cap)
        return 0;
    if (cap < 256)
        cap = 256;
    if (PyByteArray_Check(col->target)) {
        if (PyByteArray_Resize(col->target, cap) < 0)
            return -1;
        col->p = PyByteArray_AS_STRING(col->target);
        col->cap = cap;
        return 0;
    } else {
        char *p = PyMem_Realloc(col->p, cap);
        if (p == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        col->p = p;
        col->cap = cap;
        return 0;
    }
}

/* A bytearray's length set without giving back its room (what bytearray itself does on a minor
   downsize), so that the next batch appends without reallocating. */
static void
set_bytearray_length(PyObject *target, Py_ssize_t len)
{
    Py_SET_SIZE(target, len);
    PyByteArray_AS_STRING(target)[len] = '\0';
}

/* Appends into room reserved for the whole batch (one value per record, or the keys and values
   that lie inside the batch's records): no check. */
#define PUT_BYTES(col, from, size) do { \
    memcpy((col)->p + (col)->len, (from), (size_t)(size)); (col)->len += (size); } while (0)
#define PUT_I32(col, value) do { \
    int32_t v_ = (int32_t)(value); memcpy((col)->p + (col)->len, &v_, 4); (col)->len += 4; } while (0)
#define PUT_I64(col, value) do { \
    int64_t v_ = (int64_t)(value); memcpy((col)->p + (col)->len, &v_, 8); (col)->len += 8; } while (0)

ALWAYS_INLINE int
append_bytes(Column *col, const unsigned char *from, long long size)
{
    if (col->len + size > col->cap && reserve(col, size) < 0)
        return -1;
    memcpy(col->p + col->len, from, (size_t)size);
    col->len += size;
    return 0;
}

ALWAYS_INLINE int
push_i32(Column *col, long long value)
{
    int32_t v = (int32_t)value;
    if (col->len + 4 > col->cap && reserve(col, 4) < 0)
        return -1;
    memcpy(col->p + col->len, &v, 4);  /* native order, as array('i') holds it */
    col->len += 4;
    return 0;
}

ALWAYS_INLINE int
push_i64(Column *col, long long value)
{
    int64_t v = (int64_t)value;
    if (col->len + 8 > col->cap && reserve(col, 8) < 0)
        return -1;
    memcpy(col->p + col->len, &v, 8);
    col->len += 8;
    return 0;
}

/* A builder whose buffers a finish() handed over (kwire.records.column_handover) copies them
   before it is written to again: the columns that finish() gave keep their values. */
static int
take_back(PyObject *builder)
{
    int handed_over;
    PyObject *flag = PyObject_GetAttr(builder, str_handed_over), *result;
    if (flag == NULL)
        return -1;
    handed_over = PyObject_IsTrue(flag);
    Py_DECREF(flag);
    if (handed_over <= 0)
        return handed_over;
    result = PyObject_CallMethodNoArgs(builder, str_take_back);
    if (result == NULL)
        return -1;
    Py_DECREF(result);
    return 0;
}

static int
open_columns(PyObject *builder, Column *const *all, const int *kind, const char *const *name)
{
    int i;
    if (take_back(builder) < 0)
        return -1;
    for (i = 0; i < NCOLUMNS; i++)
        memset(all[i], 0, sizeof(Column));
    for (i = 0; i < NCOLUMNS; i++) {
        Column *col = all[i];
        col->owned = PyObject_GetAttrString(builder, name[i]);
        if (col->owned == NULL)
            return -1;
        col->target = col->owned;
        if (kind[i] == KIND_BYTES) {
            if (!PyByteArray_Check(col->target)) {
                PyErr_Format(PyExc_TypeError, "ColumnBuilder.%s is not a bytearray", name[i]);
                return -1;
            }
            col->p = PyByteArray_AS_STRING(col->target);
            col->len = col->start = col->cap = PyByteArray_GET_SIZE(col->target);
            {
                /* its room past the length (less the terminating NUL): no reallocation to use it */
                PyByteArrayObject *array = (PyByteArrayObject *)col->target;
                Py_ssize_t room = array->ob_alloc - (array->ob_start - array->ob_bytes) - 1;
                if (room > col->len && PyByteArray_Resize(col->target, room) == 0)
                    col->cap = room;
                PyErr_Clear();
                col->p = PyByteArray_AS_STRING(col->target);
            }
        }
    }
    return 0;
}

/* Trim the bytearrays to what was written and append the gathered integers to their arrays. An
   error part way leaves the arrays appended so far appended: rollback_columns takes them back. */
static int
close_columns(Column *const *all, const int *kind)
{
    int i;
    for (i = 0; i < NCOLUMNS; i++) {
        Column *col = all[i];
        if (kind[i] == KIND_BYTES) {
            set_bytearray_length(col->target, col->len);
            col->cap = col->len;
        }
    }
    for (i = 0; i < NCOLUMNS; i++) {
        Column *col = all[i];
        PyObject *view, *result;
        if (kind[i] == KIND_BYTES || col->len == 0)
            continue;
        col->start = PyObject_Length(col->target);
        if (col->start < 0)
            return -1;
        view = PyMemoryView_FromMemory(col->p, col->len, PyBUF_READ);
        if (view == NULL)
            return -1;
        result = PyObject_CallMethodOneArg(col->target, str_frombytes, view);
        Py_DECREF(view);
        if (result == NULL)
            return -1;
        Py_DECREF(result);
        col->cap = -1;  /* appended: rollback_columns deletes from start */
    }
    return 0;
}

static void
rollback_columns(Column *const *all, const int *kind)
{
    int i;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    for (i = 0; i < NCOLUMNS; i++) {
        Column *col = all[i];
        if (col->target == NULL)
            continue;
        if (kind[i] == KIND_BYTES) {
            set_bytearray_length(col->target, col->start);
        } else if (col->cap == -1) {
            if (PySequence_DelSlice(col->target, col->start, PY_SSIZE_T_MAX) < 0)
                PyErr_Clear();
        }
    }
    PyErr_Restore(type, value, traceback);
}

static void
free_columns(Column *const *all)
{
    int i;
    for (i = 0; i < NCOLUMNS; i++) {
        if (all[i]->target != NULL && !PyByteArray_Check(all[i]->target))
            PyMem_Free(all[i]->p);
        Py_XDECREF(all[i]->owned);
    }
}
"""

POSTLUDE = r"""static PyMethodDef builder_methods[] = {
    {"add_records", (PyCFunction)(void (*)(void))add_records, METH_FASTCALL,
     "Append the ``count`` records that fill ``data[pos:limit]`` exactly (ColumnBuilder.add_records)."},
    {NULL, NULL, 0, NULL},
};

static PyObject *
bound_add_records(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *all[10];
    Py_ssize_t i;
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "add_records takes 9 arguments");
        return NULL;
    }
    all[0] = self;
    for (i = 0; i < 9; i++)
        all[i + 1] = args[i];
    return add_records(NULL, all, 10);
}

static PyMethodDef bound_methods[] = {
    {"add_records", (PyCFunction)(void (*)(void))bound_add_records, METH_FASTCALL,
     "Append the ``count`` records that fill ``data[pos:limit]`` exactly (ColumnBuilder.add_records)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "kwire.records._column_decoder_c",
    "The C flavour of kwire.records.column_decoder (generated from generator/records/layout.py).",
    -1, builder_methods, NULL, NULL, NULL, NULL,
};

/* The module: ColumnBuilder (the Python one, its add_records in C), RecordColumns (the Python
   one), add_records(builder, ...) and BUILT_FROM (set by the build). */
PyMODINIT_FUNC
PyInit__column_decoder_c(void)
{
    PyObject *module = NULL, *errors = NULL, *python = NULL, *base = NULL, *columns = NULL;
    PyObject *bases = NULL, *namespace = NULL, *name = NULL, *method = NULL, *builder = NULL;
    str_rows = PyUnicode_InternFromString("rows");
    str_header_count = PyUnicode_InternFromString("header_count");
    str_frombytes = PyUnicode_InternFromString("frombytes");
    str_offset = PyUnicode_InternFromString("offset");
    str_handed_over = PyUnicode_InternFromString("_handed_over");
    str_take_back = PyUnicode_InternFromString("_take_back");
    if (!str_rows || !str_header_count || !str_frombytes || !str_offset || !str_handed_over || !str_take_back)
        return NULL;
    errors = PyImport_ImportModule("kwire.wire.errors");
    if (errors == NULL)
        goto fail;
    DecodeError = PyObject_GetAttrString(errors, "DecodeError");
    CorruptRecordError = PyObject_GetAttrString(errors, "CorruptRecordError");
    if (DecodeError == NULL || CorruptRecordError == NULL)
        goto fail;
    python = PyImport_ImportModule("kwire.records.column_handover");
    if (python == NULL)
        goto fail;
    base = PyObject_GetAttrString(python, "ColumnBuilder");
    columns = PyObject_GetAttrString(python, "RecordColumns");
    if (base == NULL || columns == NULL)
        goto fail;
    module = PyModule_Create(&module_def);
    if (module == NULL)
        goto fail;
    /* class ColumnBuilder(column_handover.ColumnBuilder): add_records = <C>, made as Python makes
       a class, so that single rows, finish() and rollback stay the Python source's. */
    method = PyDescr_NewMethod((PyTypeObject *)&PyBaseObject_Type, &bound_methods[0]);
    if (method == NULL)
        goto fail;
    namespace = Py_BuildValue("{s:O,s:s,s:s}", "add_records", method, "__module__", "kwire.records._column_decoder_c",
                              "__doc__", "kwire.records.column_handover.ColumnBuilder with add_records in C.");
    bases = PyTuple_Pack(1, base);
    name = PyUnicode_FromString("ColumnBuilder");
    if (namespace == NULL || bases == NULL || name == NULL)
        goto fail;
    builder = PyObject_CallFunctionObjArgs((PyObject *)Py_TYPE(base), name, bases, namespace, NULL);
    if (builder == NULL)
        goto fail;
    if (PyModule_AddObjectRef(module, "ColumnBuilder", builder) < 0
        || PyModule_AddObjectRef(module, "RecordColumns", columns) < 0)
        goto fail;
#ifdef KWIRE_BUILT_FROM  /* the SHA-256 of this file, which kwire.records.columns checks */
    if (PyModule_AddStringConstant(module, "BUILT_FROM", KWIRE_BUILT_FROM) < 0)
        goto fail;
#endif
    Py_DECREF(errors); Py_DECREF(python); Py_DECREF(base); Py_DECREF(columns); Py_DECREF(method);
    Py_DECREF(namespace); Py_DECREF(bases); Py_DECREF(name); Py_DECREF(builder);
    return module;
fail:
    Py_XDECREF(module); Py_XDECREF(errors); Py_XDECREF(python); Py_XDECREF(base); Py_XDECREF(columns);
    Py_XDECREF(method); Py_XDECREF(namespace); Py_XDECREF(bases); Py_XDECREF(name); Py_XDECREF(builder);
    return NULL;
}
"""
