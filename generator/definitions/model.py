"""The typed, immutable model of message definitions that the emitter and checkers query.

Built by :mod:`kwire.generator.definitions.builder` from validated JSON; nothing here parses text. Version
questions ("is this field present at v?", "is v flexible?") are answered here so that the
emitter never re-derives them.
"""
from __future__ import annotations

import keyword
import re
import uuid
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

from kwire.wire.primitives import INT_RANGES as INTEGER_RANGES
from kwire.wire.uuids import UuidTextError, uuid_from_text

from .types import FieldType
from .versions import NONE, Versions

MESSAGE_TYPES = ("request", "response", "header", "metadata", "data", "coordinator-key", "coordinator-value")

# Names generated classes use for their own API; a field with one of these names gets a "_" suffix.
RESERVED_ATTRIBUTES = frozenset(
    {"encode", "write", "size", "decode", "read", "to_dict", "from_dict", "unknown_tagged_fields", "copy", "get"}
)


def snake_case(name: str) -> str:
    """``ThrottleTimeMs`` -> ``throttle_time_ms``, ``ZkMigrationReady`` -> ``zk_migration_ready``."""
    name = name.replace("KRaft", "Kraft")  # one word, not K_Raft
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    return text.lower()


def lower_camel(name: str) -> str:
    """Kafka's JSON converters use the field name with its first letter lowered."""
    return name[:1].lower() + name[1:]


@dataclass(frozen=True, eq=False)
class Field:
    name: str
    type: FieldType
    versions: Versions
    nullable_versions: Versions = NONE
    tagged_versions: Versions = NONE
    tag: int | None = None
    ignorable: bool = False
    default: str = ""  # Kafka's raw default string; "" means none was given
    map_key: bool = False
    entity_type: str = "unknown"
    zero_copy: bool = False
    flexible_versions: Versions | None = None  # per-field override (string/bytes only)
    about: str = ""
    struct: Struct | None = None  # resolved struct for struct and struct-array types
    json_path: str = "$"

    # --- names -------------------------------------------------------------------------
    @property
    def attr_name(self) -> str:
        """The Python attribute name in generated classes."""
        name = snake_case(self.name)
        if keyword.iskeyword(name) or name in RESERVED_ATTRIBUTES:
            name += "_"
        return name

    @property
    def json_name(self) -> str:
        return lower_camel(self.name)

    # --- version questions -----------------------------------------------------------------
    def present_in(self, version: int) -> bool:
        return version in self.versions

    def nullable_in(self, version: int) -> bool:
        return version in self.nullable_versions

    def tagged_in(self, version: int) -> bool:
        return version in self.tagged_versions

    @property
    def is_tagged(self) -> bool:
        return self.tag is not None

    # --- defaults ---------------------------------------------------------------------------
    @property
    def has_null_default(self) -> bool:
        """True when the field's default value is null (arrays, strings, bytes, structs, records)."""
        if self.type.name == "records":
            # Kafka's records default is always null; for a field that is never nullable we use empty.
            return not self.nullable_versions.empty
        return self.default == "null"

    def default_value(self) -> Any:
        """The Python value of the default (struct defaults are the caller's to construct)."""
        return parse_default(self.type, self.default, self.has_null_default)


def parse_default(ftype: FieldType, text: str, null_default: bool) -> Any:
    """Interpret Kafka's default string for ``ftype``; raise ValueError when it does not parse."""
    name = ftype.name
    if null_default and (ftype.can_be_nullable):
        return None
    if name == "bool":
        if text == "":
            return False
        if text.lower() in ("true", "false"):
            return text.lower() == "true"
        raise ValueError(f"invalid default for bool: {text!r} (expected true or false)")
    if name in INTEGER_RANGES:
        if text == "":
            return 0
        # Java's Integer.valueOf: optional sign and ASCII digits only (Python's int() would also
        # take spaces, underscores and non-ASCII digits).
        hexadecimal = text.startswith("0x")
        digits = text[2:] if hexadecimal else text
        if not re.fullmatch(r"[+-]?[0-9a-fA-F]+" if hexadecimal else r"[+-]?[0-9]+", digits):
            raise ValueError(f"invalid default for {name}: {text!r} is not an integer")
        value = int(digits, 16 if hexadecimal else 10)
        low, high = INTEGER_RANGES[name]
        if not low <= value <= high:
            raise ValueError(f"invalid default for {name}: {text} is out of range {low}..{high}")
        return value
    if name == "float64":
        if text == "":
            return 0.0
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"invalid default for float64: {text!r}") from None
    if name == "uuid":
        if text == "":
            return uuid.UUID(int=0)
        try:  # as Kafka's generated code reads it: Uuid.fromString
            return uuid_from_text(text)
        except UuidTextError as err:
            problem = "does not decode to 16 bytes" if err.wrong_length else "is not base64url"
            raise ValueError(f"invalid default for uuid: {text!r} {problem} ({err})") from None
    if name == "string":
        return text
    if name in ("bytes", "records"):
        if text != "":
            raise ValueError(f"invalid default for {name}: only empty or null are allowed")
        return b""
    if ftype.is_array:
        if text != "":
            raise ValueError("invalid default for an array: only empty or null are allowed")
        return []
    if ftype.is_struct:
        if text != "":
            raise ValueError("invalid default for a struct: only the empty struct or null are allowed")
        return None  # "construct a fresh default struct"
    raise ValueError(f"unsupported type {ftype}")


@dataclass(frozen=True, eq=False)
class Struct:
    name: str
    versions: Versions
    fields: tuple[Field, ...]
    is_common: bool = False
    about: str = ""

    def fields_at(self, version: int) -> tuple[Field, ...]:
        """Fields present at ``version``, in declaration order (tagged ones included)."""
        return tuple(f for f in self.fields if version in f.versions)

    def untagged_fields_at(self, version: int) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if version in f.versions and version not in f.tagged_versions)

    def tagged_fields_at(self, version: int) -> tuple[Field, ...]:
        """Tagged fields at ``version`` in ascending tag order, as they go on the wire."""
        tagged = [f for f in self.fields if version in f.tagged_versions]
        return tuple(sorted(tagged, key=lambda f: f.tag))  # type: ignore[arg-type, return-value]

    @property
    def map_key_fields(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if f.map_key)

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)


@dataclass(frozen=True, eq=False)
class Message:
    name: str
    type: str
    api_key: int | None
    valid_versions: Versions
    flexible_versions: Versions
    struct: Struct  # the top-level fields, as a struct named after the message
    common_structs: tuple[Struct, ...] = ()
    deprecated_versions: Versions = NONE
    latest_version_unstable: bool = False
    listeners: tuple[str, ...] = ()
    source: str = ""  # the file the definition came from
    structs: dict[str, Struct] = dc_field(default_factory=dict)  # every named struct, by name
    # Request/response header version per range of message versions ("headerVersions", newer Kafka);
    # empty when the file does not say (the header version then follows flexibleVersions).
    header_versions: tuple[tuple[Versions, int], ...] = ()
    warnings: tuple[Any, ...] = ()  # Problems accepted anyway (kwire.generator.definitions.errors.Problem)

    @property
    def fields(self) -> tuple[Field, ...]:
        return self.struct.fields

    def versions(self) -> range:
        return range(self.valid_versions.lowest, self.valid_versions.highest + 1)

    def flexible_at(self, version: int) -> bool:
        return version in self.flexible_versions

    def fields_at(self, version: int) -> tuple[Field, ...]:
        return self.struct.fields_at(version)

    def tagged_fields_at(self, version: int) -> tuple[Field, ...]:
        return self.struct.tagged_fields_at(version)

    def all_structs(self) -> list[Struct]:
        """Every struct reachable from the message, each once, dependencies first."""
        seen: dict[str, Struct] = {}

        def visit(struct: Struct) -> None:
            for f in struct.fields:
                if f.struct is not None and f.struct.name not in seen:
                    visit(f.struct)
            seen.setdefault(struct.name, struct)

        for common in self.common_structs:
            visit(common)
        for f in self.struct.fields:
            if f.struct is not None and f.struct.name not in seen:
                visit(f.struct)
        return list(seen.values())

    def string_flexible_at(self, f: Field, version: int) -> bool:
        """Whether ``f`` (string or bytes) uses the compact encoding at ``version``."""
        if f.flexible_versions is not None:
            return version in f.flexible_versions
        return version in self.flexible_versions
