"""What the hostile-input runner needs to know about one decoder."""
from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

from kwire.wire.errors import KwireError

# Memory a decode may use whatever its input: 1 MiB, plus 64 bytes per input byte (objects are
# bigger than the bytes they come from, never unboundedly so).
BASE_MEMORY = 1 << 20
MEMORY_PER_INPUT_BYTE = 64



class NotAnInput(Exception):
    """Raised by a target's harness for bytes its decoder never sees (JSON that Python's own
    parser refuses, a response frame without its api key and version): counted apart."""


Mutator = Callable[[random.Random, bytes, Sequence[bytes]], bytes]


@dataclass(eq=False)
class Target:
    """One decoder under attack.

    ``decode`` reads the bytes and returns nothing; the only exceptions it may let escape are
    ``allowed``. ``make_seeds`` builds valid inputs (called once, when first needed). Structural
    ``mutators`` get a seed and return an input (``structural_share`` of the inputs); ``fixup``
    repairs an input after byte mutation (resealing checksums) so that some inputs get past the
    integrity checks. ``weight`` is the
    share of the cases this target gets relative to a weight of 1; ``extra_memory`` adds to the
    memory budget what the decoder may legitimately allocate beyond its input (decompression).
    """

    name: str
    decode: Callable[[bytes], None]
    make_seeds: Callable[[], Sequence[bytes]]
    allowed: tuple[type[BaseException], ...] = (KwireError,)
    weight: int = 1
    extra_memory: int = 0
    mutators: tuple[Mutator, ...] = ()
    fixup: Callable[[bytes], bytes] | None = None
    structural_share: float = 0.35  # share of the inputs made by ``mutators`` (when there are some)

    @property
    def family(self) -> str:
        return self.name.split(":", 1)[0]

    @cached_property
    def seeds(self) -> tuple[bytes, ...]:
        return tuple(self.make_seeds())

    def memory_budget(self, input_size: int) -> int:
        return BASE_MEMORY + MEMORY_PER_INPUT_BYTE * input_size + self.extra_memory
