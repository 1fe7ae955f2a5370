"""Field types of the definition format: primitives, structs and arrays of either."""
from __future__ import annotations

from dataclasses import dataclass

from .errors import did_you_mean

# name -> encoded width in bytes; None for variable-length types
PRIMITIVE_WIDTHS: dict[str, int | None] = {
    "bool": 1,
    "int8": 1,
    "int16": 2,
    "uint16": 2,
    "int32": 4,
    "uint32": 4,
    "int64": 8,
    "float64": 8,
    "uuid": 16,
    "string": None,
    "bytes": None,
    "records": None,
}


# struct format characters for the fixed-width types (big-endian is applied by the caller)
STRUCT_CODES: dict[str, str] = {
    "bool": "?",
    "int8": "b",
    "int16": "h",
    "uint16": "H",
    "int32": "i",
    "uint32": "I",
    "int64": "q",
    "float64": "d",
    "uuid": "16s",
}


@dataclass(frozen=True, slots=True)
class FieldType:
    """A parsed type string: ``int32``, ``string``, ``Topic`` (a struct) or ``[]Topic``."""

    name: str  # primitive name, struct name, or "array"
    element: FieldType | None = None

    @staticmethod
    def parse(text: str) -> FieldType:
        if text.startswith("[]"):
            element = FieldType.parse(text[2:])
            if element.is_array:
                raise ValueError(f"arrays of arrays are not supported: {text!r}")
            return FieldType("array", element)
        if text in PRIMITIVE_WIDTHS:
            return FieldType(text)
        if text[:1].isupper() and text.isalnum():
            return FieldType(text)
        if text[:1].isalpha() and text.isalnum():
            hint = did_you_mean(text, PRIMITIVE_WIDTHS)
            raise ValueError(f"unknown type {text!r}{hint}" if hint else
                             f"unknown type {text!r}: struct names start with a capital letter")
        raise ValueError(f"unknown type {text!r}")

    @property
    def is_array(self) -> bool:
        return self.name == "array"

    @property
    def is_struct(self) -> bool:
        return self.name not in PRIMITIVE_WIDTHS and self.name != "array"

    @property
    def is_struct_array(self) -> bool:
        return self.is_array and self.element is not None and self.element.is_struct

    @property
    def is_primitive(self) -> bool:
        return self.name in PRIMITIVE_WIDTHS

    @property
    def fixed_width(self) -> int | None:
        """Encoded width of a fixed-width primitive, else None."""
        return PRIMITIVE_WIDTHS.get(self.name)

    @property
    def can_be_nullable(self) -> bool:
        return self.name in ("string", "bytes", "records", "array") or self.is_struct

    @property
    def struct_name(self) -> str | None:
        """The struct this type refers to, directly or as the array element."""
        if self.is_struct:
            return self.name
        if self.is_struct_array:
            return self.element.name  # type: ignore[union-attr]
        return None

    def __str__(self) -> str:
        return f"[]{self.element}" if self.is_array else self.name
