"""The steps the plan picks off the hot path (:func:`.plan.on_hot_path`) for arrays read or
written element by element: one call to the runtime's array functions
(``kwire.wire.primitives.read_array``, ``read_struct_array``, ``write_struct_array``) instead of a loop of their own.
The bytes and the errors are the same; an error inside an element names it (``topics[3]``).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..definitions.model import Field  # noqa: F401  (the inherited constructors' annotations: pdoc resolves them here)
from .code import Lines
from .flavours import Flavour
from .ops import ArrayOp, BytesArray, Layout, LayoutName, StructArray, UuidArray, non_null  # noqa: F401  (the same)


def array_reader(op: ArrayOp) -> str:
    """The runtime function that reads the array ``op``."""
    return "read_nullable_array" if op.nullable else "read_array"


@dataclass(frozen=True, eq=False)
class SharedStructArray(StructArray):
    """An array of structs read and written through the runtime, each element by its struct's
    generated reader and writer."""

    @property
    def label(self) -> str:
        return self.attr  # the runtime names the element

    @property
    def reports_element_index(self) -> bool:
        return False

    @property
    def reads_buffer_size(self) -> bool:
        return False

    @property
    def reader_function(self) -> str:
        # (off the hot path every struct's functions take the version: plan.one_function_per_encoding)
        assert self.layout.takes_version, "the runtime passes the version to the element's functions"
        return "read_nullable_struct_array" if self.nullable else "read_struct_array"

    @property
    def runtime_functions(self) -> tuple[str, ...]:
        return (self.reader_function, "write_struct_array")

    def read(self, obj: str, flavour: Flavour) -> Lines:
        keyed = ", KeyedList" if self.keyed else ""
        return [f"{self.value(obj)}, pos = _w.{self.reader_function}(buf, pos, {self.compact}, {self.layout.reader}, "
                f"version{keyed})"]

    def write(self, obj: str, out: str) -> Lines:
        value = self.value(obj) if self.nullable else non_null(self, self.value(obj))
        return [f"_w.write_struct_array({out}, {value}, {self.compact}, {self.layout.writer}, version)"]


class ElementsReadByRuntime(ArrayOp):
    """What the arrays of strings, bytes and uuids read through the runtime share (they are
    written as on the hot path): the read, each element by ``read_one``."""

    def read_one(self, flavour: Flavour) -> str:
        raise NotImplementedError

    @property
    def reports_element_index(self) -> bool:
        return False  # the runtime names the element

    @property
    def runtime_functions(self) -> tuple[str, ...]:
        return super().runtime_functions + (array_reader(self),)

    def read(self, obj: str, flavour: Flavour) -> Lines:
        return [f"{self.value(obj)}, pos = _w.{array_reader(self)}(buf, pos, {self.compact}, {self.read_one(flavour)})"]


@dataclass(frozen=True, eq=False)
class SharedBytesArray(ElementsReadByRuntime, BytesArray):
    """An array of strings or bytes read through the runtime."""

    def read_one(self, flavour: Flavour) -> str:
        return f"_w.{self.element_runtime.read_non_null}"


@dataclass(frozen=True, eq=False)
class SharedUuidArray(ElementsReadByRuntime, UuidArray):
    """An array of uuids read through the runtime."""

    def read_one(self, flavour: Flavour) -> str:
        return flavour.hot("read_uuid")
