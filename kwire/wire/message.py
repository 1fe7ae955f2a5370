"""Base class and helpers for the generated message classes.

Generated modules define one class per message and struct with ``__slots__``, a keyword
constructor, ``__eq__`` and ``__repr__``, plus per-version reader/writer functions. They
hand those functions to the class as tables indexed by version (``_READERS`` etc.);
:class:`GeneratedStruct` (in ``kwire.wire.struct_base``, so that it compiles with mypyc) turns the
tables into the public API, and :class:`FieldInfo` describes each field (``FIELDS``) so that
``to_dict``/``from_dict``, the fuzzers and the Spark schemas can work from the class alone.
"""
from __future__ import annotations

from typing import Any

from .errors import UnsupportedVersionError
from .field_info import NEVER, FieldInfo
from .jsonform import UNKNOWN_TAGS_KEY
from .keyed_list import KeyedList
from .struct_base import GeneratedStruct

__all__ = ["DEFAULT", "FieldInfo", "GeneratedStruct", "KeyedList", "NEVER", "UNKNOWN_TAGS_KEY", "blank_instance",
           "check_unsupported"]

def is_flexible(message_cls: Any, version: int) -> bool:
    """Whether ``version`` of a generated message uses the flexible (compact, tagged) encoding."""
    first_flexible = getattr(message_cls, "FLEXIBLE_VERSIONS", None)
    return first_flexible is not None and version >= first_flexible


class _Default:
    """The type of :data:`DEFAULT` (one instance, which pickles and copies as itself)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "DEFAULT"

    def __reduce__(self) -> str:
        return "DEFAULT"


# The default of a generated constructor's array and struct parameters whose definition's default
# is not null: leaving the argument out gives a fresh default value, while None is Kafka's null.
# Typed Any so that it fits any parameter's annotation.
DEFAULT: Any = _Default()


def _lazy_default(self: GeneratedStruct, name: str) -> Any:
    # Only reached when the slot is unset: make the default on first access and keep it, so the
    # caller gets a fresh struct or list it may mutate, exactly as after __init__; or make the
    # value a reader left in the input (_MADE_FROM_INPUT: a records field's view).
    cls = type(self)
    factory = cls._LAZY_DEFAULTS.get(name)
    if factory is not None:
        value = factory()
    else:
        made_from_input = cls._MADE_FROM_INPUT.get(name)
        if made_from_input is None:
            raise AttributeError(f"{cls.__name__!r} object has no attribute {name!r}")
        value = made_from_input(self)  # (an AttributeError if nothing was read into it either)
    setattr(self, name, value)
    return value


# Installed here rather than in the class body: mypy would accept any attribute name on a class
# with __getattr__, and the compiled copy of the base class needs none (compiled readers set
# every field).
GeneratedStruct.__getattr__ = _lazy_default

# An instance without running ``__init__``: the decoders set every slot themselves. Bound to
# object.__new__ itself so that the call costs no Python frame (and, unlike ``Cls.__new__(Cls)``,
# no look-up on the class).
blank_instance = object.__new__


def check_unsupported(obj: Any, field: str, versions: str) -> None:
    """Refuse to drop a non-default value: ``versions`` are those sharing the writer that lacks it."""
    plural = "s" if "-" in versions or "," in versions else ""
    raise UnsupportedVersionError(
        f"{type(obj).NAME}.{field} has a non-default value but version{plural} {versions} "
        f"{'have' if plural else 'has'} no such field (and it is not ignorable)")

