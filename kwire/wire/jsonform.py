"""Kafka's JSON-converter form of generated messages, and back.

Kafka generates a ``<Message>JsonConverter`` per message: lowerCamel keys, only the fields the
version has, tagged fields left out at their default, bytes in base64, uuids in base64url
without padding, int64 as exact integers. We follow it, with two extensions that make the form
lossless where Kafka's is not:

* ``records`` fields are base64 bytes (Kafka's converter writes ``""`` or only their size, and
  reads base64 bytes);
* unknown tagged fields are kept under the reserved key ``"_unknownTaggedFields"`` as a list of
  ``{"tag": n, "data": base64}`` in tag order (the key is absent when there are none).
"""
from __future__ import annotations

import base64
import math
from typing import Any

from .errors import DecodeError, join_path
from .field_info import FieldInfo
from .keyed_list import KeyedList
from .uuids import uuid_from_text, uuid_to_text

# Key of Kafka's JSON form under which kwire keeps unknown tagged fields (tag -> base64 payload).
UNKNOWN_TAGS_KEY = "_unknownTaggedFields"

# A generated struct or its class. Not imported: GeneratedStruct.to_dict/from_dict call this module,
# which reads a struct only through its FIELDS.
Struct = Any

_INT_RANGES = {
    "int8": (-(2**7), 2**7 - 1), "int16": (-(2**15), 2**15 - 1), "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1), "uint32": (0, 2**32 - 1), "int64": (-(2**63), 2**63 - 1),
}


def _is_default(info: FieldInfo, value: Any) -> bool:
    default = info.make_default()
    return value == default and (value is None) == (default is None)


# --- to JSON ------------------------------------------------------------------------------------

def struct_to_dict(obj: Struct, version: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for info in obj.FIELDS:
        if not info.present(version):
            continue
        value = getattr(obj, info.attr)
        if info.tagged_in(version) and _is_default(info, value):
            continue
        out[info.json_name] = _value_to_json(info, info.type, value, version)
    if obj.unknown_tagged_fields:
        out[UNKNOWN_TAGS_KEY] = [
            {"tag": tag, "data": base64.b64encode(data).decode("ascii")}
            for tag, data in sorted(obj.unknown_tagged_fields)
        ]
    return out


def _value_to_json(info: FieldInfo, type_name: str, value: Any, version: int) -> Any:
    if value is None:
        return None
    if type_name.startswith("[]"):
        element = type_name[2:]
        return [_value_to_json(info, element, item, version) for item in value]
    if type_name in ("bytes", "records"):
        return base64.b64encode(bytes(value)).decode("ascii")
    if type_name == "uuid":
        return uuid_to_text(value)
    if type_name == "float64" and (math.isnan(value) or math.isinf(value)):
        # JSON has no NaN/Infinity; Jackson writes them as the strings Java's Double.toString gives
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if info.struct is not None and type_name == info.struct.NAME:
        return struct_to_dict(value, version)
    return value


# --- from JSON ----------------------------------------------------------------------------------

def struct_from_dict(cls: type[Struct], data: Any, version: int, path: str = "") -> Any:
    if not isinstance(data, dict):
        raise DecodeError(f"expected a JSON object for {cls.NAME}, got {type(data).__name__}", path=path)
    known = {info.json_name: info for info in cls.FIELDS}
    for key in data:
        if key not in known and key != UNKNOWN_TAGS_KEY:
            raise DecodeError(f"{cls.NAME} has no field {key!r}", path=join_path(path, key))
    obj = cls.__new__(cls)
    for info in cls.FIELDS:
        where = join_path(path, info.attr)
        if info.present(version) and info.json_name in data:
            value = _value_from_json(info, info.type, data[info.json_name], version, where)
        elif info.present(version) and not info.tagged_in(version):
            raise DecodeError(f"{cls.NAME} v{version} needs field {info.json_name!r}", path=where)
        else:
            value = info.make_default()
        setattr(obj, info.attr, value)
    obj.unknown_tagged_fields = _unknown_from_json(data.get(UNKNOWN_TAGS_KEY, []), path)
    return obj


def _unknown_from_json(items: Any, path: str) -> tuple[tuple[int, bytes], ...]:
    where = join_path(path, UNKNOWN_TAGS_KEY)
    if not isinstance(items, list):
        raise DecodeError("unknown tagged fields must be a list", path=where)
    result = []
    for item in items:
        try:
            tag, data = item["tag"], base64.b64decode(item["data"], validate=True)
        except (TypeError, KeyError, ValueError) as exc:  # binascii.Error is a ValueError
            raise DecodeError(f"bad unknown tagged field {item!r}: {exc}", path=where) from None
        if not isinstance(tag, int) or isinstance(tag, bool) or tag < 0:
            raise DecodeError(f"bad tag {tag!r}", path=where)
        result.append((tag, data))
    return tuple(sorted(result))


def _value_from_json(info: FieldInfo, type_name: str, value: Any, version: int, path: str) -> Any:
    if value is None:
        # As Kafka's converters: null only where the version makes the field nullable (a records
        # field too: Kafka's jsonNodeToBinary refuses a null node)
        if info.nullable_in(version):
            return None
        raise DecodeError(f"null is not allowed for {info.json_name} at version {version}", path=path)
    if type_name.startswith("[]"):
        if not isinstance(value, list):
            raise DecodeError(f"expected a JSON array, got {type(value).__name__}", path=path)
        element = type_name[2:]
        items = [_value_from_json(info, element, item, version, f"{path}[{i}]") for i, item in enumerate(value)]
        if info.struct is not None and info.struct._MAP_KEYS:
            return KeyedList(items)
        return items
    if info.struct is not None and type_name == info.struct.NAME:
        return struct_from_dict(info.struct, value, version, path)
    try:
        return _scalar_from_json(type_name, value)
    except (ValueError, TypeError, OverflowError) as exc:  # binascii.Error is a ValueError
        raise DecodeError(f"invalid {type_name} value {value!r}: {exc}", path=path) from None


def _scalar_from_json(type_name: str, value: Any) -> Any:
    if type_name == "bool":
        if not isinstance(value, bool):
            raise TypeError("expected true or false")
        return value
    if type_name in _INT_RANGES:
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise TypeError("expected an integer")
        number = int(value)
        low, high = _INT_RANGES[type_name]
        if not low <= number <= high:
            raise ValueError(f"out of range {low}..{high}")
        return number
    if type_name == "float64":
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise TypeError("expected a number")
        return float(value)
    if type_name == "string":
        if not isinstance(value, str):
            raise TypeError("expected a string")
        return value
    if type_name in ("bytes", "records"):
        return base64.b64decode(value, validate=True)
    if type_name == "uuid":
        return uuid_from_text(value)
    raise TypeError(f"unsupported type {type_name}")

