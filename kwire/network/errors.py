"""Kafka's error codes as exceptions, and a walk over a response's errors.

:class:`ErrorCode`, the table of codes, lives in :mod:`kwire.wire.error_codes` (every part may
read it); it is importable from here as well, where it used to live.

:func:`raise_for` turns a code into an exception: one class per code, all below
:class:`KafkaApiError` (a :class:`~kwire.wire.errors.KwireError`), and :class:`UnknownErrorCode`
for a number this table does not know (it keeps the number). :func:`iter_errors` walks a decoded
response and yields every non-zero error code with its field path and error message.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kwire.wire.error_codes import ErrorCode as ErrorCode  # noqa: PLC0414 (re-exported: its old home)
from kwire.wire.errors import KwireError

# --- exceptions ----------------------------------------------------------------------------------

class ClientError(KwireError):
    """The conversation with a broker failed: no connection, a timeout, a closed stream, or an
    error code (``error_code``) where a caller reports one as such."""

    def __init__(self, message: str, *, error_code: int | None = None) -> None:
        self.error_code = error_code
        super().__init__(message)


class KafkaApiError(KwireError):
    """A broker answered with a non-zero error code.

    ``code`` is the :class:`ErrorCode` (a plain int for :class:`UnknownErrorCode`),
    ``retriable`` Kafka's verdict, ``error_message`` the broker's own message (or None).
    """

    code: int
    retriable: bool = False

    def __init__(self, code: int, message: str | None = None) -> None:
        self.code = code
        self.error_message = message
        known = ErrorCode.lookup(code)
        name = known.name if known is not None else f"error code {code}"
        description = known.description if known is not None else "a code this kwire does not know"
        super().__init__(f"{name} ({code}): {message}" if message else f"{name} ({code}): {description}")


class RetriableKafkaError(KafkaApiError):
    """An error Kafka calls retriable: the same request may succeed later."""

    retriable = True


class UnknownErrorCode(KafkaApiError):
    """A code that is not in :class:`ErrorCode` (a newer broker's): the number is kept in ``code``.

    Not retriable, as Kafka's own clients treat a code they do not know.
    """


def _class_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_")) + "Error"


# One class per code, named after it (UNKNOWN_TOPIC_OR_PARTITION -> UnknownTopicOrPartitionError),
# so a caller can catch exactly one code; NONE has none.
EXCEPTIONS: dict[ErrorCode, type[KafkaApiError]] = {
    member: type(_class_name(member.name), (RetriableKafkaError if member.retriable else KafkaApiError,),
                 {"__doc__": member.description, "__module__": __name__})
    for member in ErrorCode if member is not ErrorCode.NONE
}
globals().update({cls.__name__: cls for cls in EXCEPTIONS.values()})


def exception_for(code: int, message: str | None = None) -> KafkaApiError | None:
    """The exception for ``code`` (None for 0, NONE)."""
    if code == 0:
        return None
    known = ErrorCode.lookup(code)
    if known is None:
        return UnknownErrorCode(code, message)
    return EXCEPTIONS[known](known, message)


def raise_for(code: int, message: str | None = None) -> None:
    """Raise the exception for a non-zero ``code``; return quietly for 0."""
    error = exception_for(code, message)
    if error is not None:
        raise error


# --- every error in a response -------------------------------------------------------------------

@dataclass(frozen=True)
class ErrorReport:
    """One non-zero error code found in a response."""

    path: str  # field path, e.g. "topics[0].partitions[2].error_code"
    code: int  # an ErrorCode, or the raw number for a code Kafka 4.2.1 does not define
    message: str | None  # the sibling error_message field, where the message has one

    @property
    def error(self) -> KafkaApiError:
        error = exception_for(self.code, self.message)
        assert error is not None  # reports are only made for non-zero codes
        return error


def _is_error_code(info: Any) -> bool:
    return bool(info.type == "int16" and info.attr.endswith("error_code"))


def iter_errors(response: Any, path: str = "") -> Iterator[ErrorReport]:
    """Every non-zero error code in a decoded message, in field order, nested structs included.

    A field is an error code when it is an int16 whose name ends in ``error_code`` (as every
    error field of Kafka's definitions is named); its message is the sibling field ending in
    ``error_message`` when there is one.
    """
    fields = getattr(type(response), "FIELDS", ())
    for info in fields:
        value = getattr(response, info.attr, None)
        where = f"{path}.{info.attr}" if path else info.attr
        if _is_error_code(info):
            if value:
                message = getattr(response, info.attr[: -len("code")] + "message", None)
                known = ErrorCode.lookup(value)
                yield ErrorReport(where, known if known is not None else value,
                                  message if isinstance(message, str) else None)
        elif info.struct is not None and value is not None:
            if isinstance(value, (list, tuple)) or hasattr(value, "find"):
                for index, item in enumerate(value):
                    yield from iter_errors(item, f"{where}[{index}]")
            else:
                yield from iter_errors(value, where)


def raise_first(response: Any, *, ignore: frozenset[int] = frozenset()) -> None:
    """Raise the exception for the first error code of ``response`` not in ``ignore``."""
    for report in iter_errors(response):
        if report.code not in ignore:
            raise report.error
