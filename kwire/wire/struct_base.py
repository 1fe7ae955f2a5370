"""The base class of every generated class, and the readers generated code calls in hot loops.

This module must stay compilable by mypyc: plain annotated code, absolute imports, nothing
dynamic. ``kwire generate --compile`` copies it verbatim into the compiled package as
``_base.py`` and compiles it in the same group as the generated modules, so that the generated
classes are native classes with a native base (mypyc cannot give a native class a base that is
compiled elsewhere, nor compile a kwire module in place without shadowing kwire's own sources).
Pure-Python packages use it from here, through ``kwire.wire.message``.
"""
from __future__ import annotations

import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Final, TypeVar
from uuid import UUID, SafeUUID

from kwire.wire.errors import DecodeError, UnsupportedVersionError
from kwire.wire.varint import read_uvarint  # pasted in when compiled (kwire.generator.native.inline)

if TYPE_CHECKING:  # machine integers for mypyc (annotations only: see the fixed-width readers below)
    from mypy_extensions import i64

T = TypeVar("T", bound="GeneratedStruct")

_unpack_int32: Final = struct.Struct(">i").unpack_from


class GeneratedStruct:
    """Common API of every generated class (messages and nested structs).

    Generated modules hand their per-version functions to each class as tables indexed by
    version (``_READERS`` etc.); this class turns the tables into the public API.
    """

    # The one slot every generated class has, declared once here with the text help() shows
    # (the same as the attribute docstring below, which IDEs show).
    __slots__ = {"unknown_tagged_fields": "Tagged fields this version does not know, as (tag, payload) pairs: "
                                          "kept as they came and written back in tag order."}

    NAME: ClassVar[str]
    VALID_VERSIONS: ClassVar[tuple[int, int]]
    FIELDS: ClassVar[tuple[Any, ...]]  # kwire.wire.message.FieldInfo
    _MAP_KEYS: ClassVar[tuple[str, ...]] = ()
    _READERS: ClassVar[tuple[Callable | None, ...]]
    _WRITERS: ClassVar[tuple[Callable | None, ...]]

    # Fields whose default is a new struct or list, which pure-Python readers leave unset when
    # the version has no such field or the tagged field is absent: attribute name -> factory
    # (kwire.wire.message gives the pure-Python class the __getattr__ that uses it).
    _LAZY_DEFAULTS: ClassVar[dict[str, Callable[[], Any]]] = {}
    # Fields a pure-Python reader leaves unset while it keeps where they lie in the input, made on
    # first read from the instance: attribute name -> function of the instance (a ``records``
    # field's RecordsView, from the hidden slots ``_<attr>_buf/_start/_end``).
    _MADE_FROM_INPUT: ClassVar[dict[str, Callable[[Any], Any]]] = {}

    unknown_tagged_fields: tuple[tuple[int, bytes], ...]
    ("Tagged fields this version does not know, as (tag, payload) pairs: kept as they came and written back "
     "in tag order.")  # one line of text: the generated classes' __slots__ repeat it for help()

    # --- comparison and repr, from FIELDS -------------------------------------------------------
    # Written once here rather than field by field in every generated class: FIELDS names every
    # field in definition order, and getattr reads it as user code would (a property or the
    # lazy-default __getattr__ makes a default not set yet, as a generated line did).
    __hash__ = None  # type: ignore[assignment]  # mutable

    def __eq__(self, other: object) -> bool:
        """Equal to an instance of this class whose fields and unknown tagged fields are all equal."""
        if not isinstance(other, type(self)):
            return NotImplemented
        for field in self.FIELDS:
            if not getattr(self, field.attr) == getattr(other, field.attr):
                return False
        return self.unknown_tagged_fields == other.unknown_tagged_fields

    def __repr__(self) -> str:
        fields = "".join(f"{field.attr}={getattr(self, field.attr)!r}, " for field in self.FIELDS)
        return f"{self.NAME}({fields}unknown_tagged_fields={self.unknown_tagged_fields!r})"

    # --- version dispatch -------------------------------------------------------------------
    @classmethod
    def _table_entry(cls, table: tuple[Callable | None, ...], version: int) -> Callable:
        if type(version) is int and 0 <= version < len(table):
            fn = table[version]
            if fn is not None:
                return fn
        low, high = cls.VALID_VERSIONS
        raise UnsupportedVersionError(f"{cls.NAME} has no version {version!r} (valid: {low}..{high})")

    # --- encoding ---------------------------------------------------------------------------
    def encode(self, version: int) -> bytes:
        """The message body at ``version``."""
        out = bytearray()
        self._table_entry(self._WRITERS, version)(self, out)
        return bytes(out)

    def write(self, out: bytearray, version: int) -> None:
        """Append the body at ``version`` to ``out``."""
        self._table_entry(self._WRITERS, version)(self, out)

    def size(self, version: int) -> int:
        """The encoded size at ``version``: the length of :meth:`encode`'s result.

        It encodes: nothing in kwire needs a size without the bytes (frames are written from
        the encoded body), so generated modules carry no sizing code of their own.
        """
        return len(self.encode(version))

    # --- decoding ---------------------------------------------------------------------------
    @classmethod
    def decode(cls: type[T], data: bytes | bytearray | memoryview, version: int) -> T:
        """Decode a whole buffer; bytes left over are an error."""
        buf = data if type(data) is bytes else bytes(data)
        readers = cls._READERS
        # The table look-up of _table_entry inline (decode is the hot entry point); a version
        # that is not in the table goes there for the error.
        reader = readers[version] if type(version) is int and 0 <= version < len(readers) else None
        if reader is None:
            reader = cls._table_entry(readers, version)
        obj, pos = reader(buf, 0)
        if pos != len(buf):
            raise DecodeError(f"{len(buf) - pos} bytes left after {cls.NAME} v{version}", offset=pos)
        result: T = obj
        return result

    @classmethod
    def read(cls: type[T], buf: bytes, pos: int, version: int) -> tuple[T, int]:
        """Decode one instance starting at ``pos``; return it and the position after it."""
        if type(buf) is not bytes:
            buf = bytes(buf)
        if not 0 <= pos <= len(buf):
            raise DecodeError(f"start position {pos} is outside the buffer", offset=pos)
        result: tuple[T, int] = cls._table_entry(cls._READERS, version)(buf, pos)
        return result

    # --- Kafka's JSON form ------------------------------------------------------------------
    def to_dict(self, version: int) -> dict[str, Any]:
        """Kafka's JSON-converter form at ``version`` (see kwire.wire.jsonform for the extensions)."""
        from kwire.wire.jsonform import struct_to_dict

        self._table_entry(self._WRITERS, version)
        obj: Any = self  # in a compiled package this is the package's copy of the class
        return struct_to_dict(obj, version)

    @classmethod
    def from_dict(cls: type[T], data: dict[str, Any], version: int) -> T:
        from kwire.wire.jsonform import struct_from_dict

        cls._table_entry(cls._READERS, version)
        target: Any = cls
        result: T = struct_from_dict(target, data, version)
        return result

    def _map_key(self) -> tuple:
        return tuple(getattr(self, name) for name in self._MAP_KEYS)


# --- big-endian integers at an offset --------------------------------------------------------
# Compiled builds read fixed-width fields with these instead of struct.unpack_from: compiled,
# they are a few machine instructions with no tuple or call through Python (the pure-Python
# build keeps struct, which is faster there). Past the end of ``buf`` they raise IndexError,
# which the generated readers turn into a DecodeError naming the field. (int16, int32 and
# int64, the common ones, compiled readers now read with librt's readers, which mypyc inlines:
# a call through the export table of this module cost more than the read; these serve the rest.)
#
# The ``i64`` annotations make mypyc keep the position and the bytes as machine integers (one
# bounds-checked load per byte, shifts without overflow checks): with plain ``int`` every shift
# and ``|`` is an arbitrary-precision operation, and an int64 read cost ~2.5x as much. They are
# only annotations: plain Python never evaluates them, so nothing imports mypy_extensions then.

def read_int8(buf: bytes, pos: int) -> int:
    v = buf[pos]
    return v - 0x100 if v >= 0x80 else v


def read_bool(buf: bytes, pos: int) -> bool:
    return buf[pos] != 0  # Kafka reads any non-zero byte as true


def read_uint16(buf: bytes, pos: int) -> int:
    p: i64 = pos
    b0: i64 = buf[p]
    b1: i64 = buf[p + 1]
    return b0 << 8 | b1


def read_int16(buf: bytes, pos: int) -> int:
    p: i64 = pos
    b0: i64 = buf[p]
    b1: i64 = buf[p + 1]
    v: i64 = b0 << 8 | b1
    return v - 0x10000 if v >= 0x8000 else v


def read_uint32(buf: bytes, pos: int) -> int:
    p: i64 = pos
    b0: i64 = buf[p]
    b1: i64 = buf[p + 1]
    b2: i64 = buf[p + 2]
    b3: i64 = buf[p + 3]
    return b0 << 24 | b1 << 16 | b2 << 8 | b3


def read_int32(buf: bytes, pos: int) -> int:
    p: i64 = pos
    b0: i64 = buf[p]
    b1: i64 = buf[p + 1]
    b2: i64 = buf[p + 2]
    b3: i64 = buf[p + 3]
    v: i64 = b0 << 24 | b1 << 16 | b2 << 8 | b3
    return v - 0x100000000 if v >= 0x80000000 else v


def read_int64(buf: bytes, pos: int) -> int:
    p: i64 = pos
    b0: i64 = buf[p]
    b1: i64 = buf[p + 1]
    b2: i64 = buf[p + 2]
    b3: i64 = buf[p + 3]
    b4: i64 = buf[p + 4]
    b5: i64 = buf[p + 5]
    b6: i64 = buf[p + 6]
    b7: i64 = buf[p + 7]
    # Shifting the top byte into bit 63 wraps to the negative value in an i64, as in Java's
    # getLong; in plain Python it stays positive, so the sign is applied explicitly.
    high: i64 = b0 << 24 | b1 << 16 | b2 << 8 | b3
    if high >= 0x80000000:
        high -= 0x100000000
    return high << 32 | b4 << 24 | b5 << 16 | b6 << 8 | b7


# --- variable-length pieces read in hot loops --------------------------------------------------
# (kwire.wire.primitives re-exports them; generated code calls them through kwire.wire.primitives when pure, directly
# when compiled, so that no Python frame is entered.)

def check_room(buf: bytes, pos: int, length: int, what: str) -> int:
    end = pos + length
    if end > len(buf):
        raise DecodeError(f"{what} of length {length} runs past the end of the buffer "
                          f"({len(buf) - pos} bytes left)", offset=pos)
    return end


def _read_size_prefix(buf: bytes, pos: int, compact: bool, what: str) -> tuple[int, int]:
    """A count or length: unsigned varint n+1 (compact) or int32 n; -1 means null.

    Kafka reads any negative int32 as null, so every negative comes back as -1.
    """
    if compact:
        n, new_pos = read_uvarint(buf, pos, len(buf))
        return n - 1, new_pos
    if pos + 4 > len(buf):
        raise DecodeError(f"truncated {what}", offset=pos)
    (n,) = _unpack_int32(buf, pos)
    return (n if n >= 0 else -1), pos + 4


def read_count(buf: bytes, pos: int, compact: bool) -> tuple[int, int]:
    """Read an array count; -1 means null. Refuse counts larger than the bytes left."""
    n, new_pos = _read_size_prefix(buf, pos, compact, "array length")
    if n > len(buf) - new_pos:
        raise DecodeError(f"array of {n} elements cannot fit in the {len(buf) - new_pos} bytes left", offset=pos)
    return n, new_pos


def read_length(buf: bytes, pos: int, compact: bool) -> tuple[int, int]:
    """The length of a bytes/records value (-1 for null), checked against the bytes left."""
    n, pos = _read_size_prefix(buf, pos, compact, "bytes length")
    if n > len(buf) - pos:
        raise DecodeError(f"records of length {n} run past the end of the buffer "
                          f"({len(buf) - pos} bytes left)", offset=pos)
    return n, pos


_new_object = object.__new__
_set_attribute = object.__setattr__
_UUID_SAFETY = SafeUUID.unknown


def read_uuid(buf: bytes, pos: int) -> tuple[UUID, int]:
    end = pos + 16
    if end > len(buf):
        raise DecodeError("truncated uuid", offset=pos)
    # UUID(bytes=...) validates its arguments in Python; the bytes are known good here, so set
    # the two slots directly (what UUID.__init__ ends with; benchmarks/README.md, "Figures behind design choices").
    u = _new_object(UUID)
    _set_attribute(u, "int", int.from_bytes(buf[pos:end], "big"))
    _set_attribute(u, "is_safe", _UUID_SAFETY)
    return u, end


def read_tag_header(buf: bytes, pos: int) -> tuple[int, int, int]:
    """Read (tag, payload end, payload start) and check the payload fits."""
    tag, pos = read_uvarint(buf, pos, len(buf))
    size, pos = read_uvarint(buf, pos, len(buf))
    end = pos + size
    if end > len(buf):  # (the message is built only on failure)
        raise DecodeError(f"tagged field {tag} of length {size} runs past the end of the buffer "
                          f"({len(buf) - pos} bytes left)", offset=pos)
    return tag, end, pos


def read_tag_count(buf: bytes, pos: int) -> tuple[int, int]:
    """Number of tagged fields; each takes at least two bytes, so refuse impossible counts."""
    n, new_pos = read_uvarint(buf, pos, len(buf))
    if 2 * n > len(buf) - new_pos:
        raise DecodeError(f"{n} tagged fields cannot fit in the {len(buf) - new_pos} bytes left", offset=pos)
    return n, new_pos
