"""Base class and helpers for the generated message classes.

Generated modules define one class per message and struct with ``__slots__``, a keyword
constructor, ``__eq__`` and ``__repr__``, plus per-version reader/writer/sizer functions. They
hand those functions to the class as tables indexed by version (``_READERS`` etc.); this base
class turns the tables into the public API, and describes each field (``FIELDS``) so that
``to_dict``/``from_dict``, the fuzzers and the Spark schemas can work from the class alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, ClassVar, TypeVar

from .errors import DecodeError, UnsupportedVersionError

T = TypeVar("T", bound="GeneratedStruct")

# Key of Kafka's JSON form under which kwire keeps unknown tagged fields (tag -> base64 payload).
UNKNOWN_TAGS_KEY = "_unknownTaggedFields"


@dataclass(frozen=True, slots=True)
class FieldInfo:
    """What the runtime needs to know about one field, without the generator."""

    attr: str  # Python attribute name
    json_name: str  # Kafka's JSON-converter key
    type: str  # Kafka type string: int32, string, []Topic, Topic, ...
    versions: tuple[int, int]  # inclusive (lowest, highest); lowest > highest = never
    nullable: tuple[int, int]
    tagged: tuple[int, int]
    tag: int | None
    ignorable: bool
    default: Any  # the default value (None for null; a struct default is made by calling ``struct``)
    struct: Any = None  # the generated class for struct and struct-array types
    map_key: bool = False

    def present(self, version: int) -> bool:
        return self.versions[0] <= version <= self.versions[1]

    def nullable_in(self, version: int) -> bool:
        return self.nullable[0] <= version <= self.nullable[1]

    def tagged_in(self, version: int) -> bool:
        return self.tagged[0] <= version <= self.tagged[1]

    @property
    def element_type(self) -> str | None:
        return self.type[2:] if self.type.startswith("[]") else None

    def make_default(self) -> Any:
        """A fresh default value (never shared between instances)."""
        if self.default is None:
            return None
        if self.type.startswith("[]"):
            return KeyedList() if self.struct is not None and self.struct._MAP_KEYS else []
        if self.struct is not None:
            return self.struct()
        return self.default


class KeyedList(list):
    """A list of struct elements with map keys: ordered, duplicates kept, lookup by key.

    Kafka's Java code uses an implicit linked hash multi-collection for ``mapKey`` arrays; a list
    keeps the wire order and duplicates exactly, and ``find``/``find_all`` look elements up.
    """

    __slots__ = ()

    def find(self, *key: Any) -> Any:
        """The first element whose map key fields equal ``key``, or None."""
        for element in self:
            if element._map_key() == key:
                return element
        return None

    def find_all(self, *key: Any) -> list:
        return [e for e in self if e._map_key() == key]

    def index_by_key(self) -> dict[tuple, list]:
        """All elements grouped by key, for many lookups at once."""
        index: dict[tuple, list] = {}
        for element in self:
            index.setdefault(element._map_key(), []).append(element)
        return index


class GeneratedStruct:
    """Common API of every generated class (messages and nested structs)."""

    __slots__ = ()

    NAME: ClassVar[str]
    VALID_VERSIONS: ClassVar[tuple[int, int]]
    FIELDS: ClassVar[tuple[FieldInfo, ...]]
    _MAP_KEYS: ClassVar[tuple[str, ...]] = ()
    _READERS: ClassVar[tuple[Callable | None, ...]]
    _WRITERS: ClassVar[tuple[Callable | None, ...]]
    _SIZERS: ClassVar[tuple[Callable | None, ...]]

    unknown_tagged_fields: tuple[tuple[int, bytes], ...]

    # --- version dispatch -------------------------------------------------------------------
    @classmethod
    def _table_entry(cls, table: tuple, version: int) -> Callable:
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
        """The encoded size at ``version``, computed without encoding."""
        return self._table_entry(self._SIZERS, version)(self)

    # --- decoding ---------------------------------------------------------------------------
    @classmethod
    def decode(cls: type[T], data: bytes | bytearray | memoryview, version: int) -> T:
        """Decode a whole buffer; bytes left over are an error."""
        buf = data if type(data) is bytes else bytes(data)
        obj, pos = cls._table_entry(cls._READERS, version)(buf, 0)
        if pos != len(buf):
            raise DecodeError(f"{len(buf) - pos} bytes left after {cls.NAME} v{version}", offset=pos)
        return obj

    @classmethod
    def read(cls: type[T], buf: bytes, pos: int, version: int) -> tuple[T, int]:
        """Decode one instance starting at ``pos``; return it and the position after it."""
        if type(buf) is not bytes:
            buf = bytes(buf)
        if not 0 <= pos <= len(buf):
            raise DecodeError(f"start position {pos} is outside the buffer", offset=pos)
        return cls._table_entry(cls._READERS, version)(buf, pos)

    # --- Kafka's JSON form ------------------------------------------------------------------
    def to_dict(self, version: int) -> dict[str, Any]:
        """Kafka's JSON-converter form at ``version`` (see kwire.jsonform for the extensions)."""
        from .jsonform import struct_to_dict

        self._table_entry(self._WRITERS, version)
        return struct_to_dict(self, version)

    @classmethod
    def from_dict(cls: type[T], data: dict[str, Any], version: int) -> T:
        from .jsonform import struct_from_dict

        cls._table_entry(cls._READERS, version)
        return struct_from_dict(cls, data, version)

    def _map_key(self) -> tuple:
        return tuple(getattr(self, name) for name in self._MAP_KEYS)


# An instance without running ``__init__``: the decoders set every slot themselves. Bound to
# object.__new__ itself so that the call costs no Python frame.
new_instance = object.__new__


def check_unsupported(obj: Any, field: str, versions: str) -> None:
    """Refuse to drop a non-default value: ``versions`` are those sharing the writer that lacks it."""
    plural = "s" if "-" in versions or "," in versions else ""
    raise UnsupportedVersionError(
        f"{type(obj).NAME}.{field} has a non-default value but version{plural} {versions} "
        f"{'have' if plural else 'has'} no such field (and it is not ignorable)")

