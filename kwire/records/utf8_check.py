"""Where bytes stop being well-formed UTF-8: the column decoder's check of header keys.

Hand-written, and the one Python spelling of the check (the C flavour spells it in C,
``kwire/records/column_decoder_c.c``). The generated record loop
(:mod:`kwire.records._generated_columns`) imports it; the mypyc build of the column decoder pastes
these definitions into the compiled copy (``kwire.generator.native.records``), since mypyc cannot
inline a call into another module.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # a machine integer for mypyc (annotations only; plain ints in Python)
    from mypy_extensions import i64

#: What :func:`utf8_error` returns when all of its bytes are well-formed.
UTF8_VALID: Final = -1


def utf8_error(data: bytes, pos: i64, stop: i64) -> i64:
    """Where ``data[pos:stop]`` stops being well-formed UTF-8 (Unicode's table 3-7: no overlong
    forms, no surrogates, nothing past U+10FFFF), or ``UTF8_VALID`` (-1) when all of it is."""
    while pos < stop:
        b: i64 = data[pos]
        if b < 0x80:
            pos += 1
            continue
        low: i64 = 0x80
        high: i64 = 0xBF
        if 0xC2 <= b <= 0xDF:
            follow: i64 = 1
        elif 0xE0 <= b <= 0xEF:
            follow = 2
            if b == 0xE0:
                low = 0xA0
            elif b == 0xED:
                high = 0x9F
        elif 0xF0 <= b <= 0xF4:
            follow = 3
            if b == 0xF0:
                low = 0x90
            elif b == 0xF4:
                high = 0x8F
        else:
            return pos
        if pos + follow >= stop:
            return pos
        c: i64 = data[pos + 1]
        if c < low or c > high:
            return pos
        k: i64 = 2
        while k <= follow:
            c = data[pos + k]
            if c < 0x80 or c > 0xBF:
                return pos
            k += 1
        pos += follow + 1
    return UTF8_VALID
