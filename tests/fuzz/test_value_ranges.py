"""The fuzzer's middle float branch draws from the whole of [-1e6, 1e6], negatives included.

A ``random.Random`` whose ``random()`` always answers 0.45 picks that branch (0.3 <= r < 0.6) and
fixes the draw: Python documents ``uniform(a, b)`` as ``a + (b - a) * random()``, so the value must be
-1e6 + 2e6 * 0.45. Kills ``kwire.fuzz.values.x_random_float__mutmut_11`` (the range's lower end
made +1e6: every draw of the branch 1e6)."""
from __future__ import annotations

import random

from kwire.fuzz.values import random_float


class Fixed(random.Random):
    def random(self) -> float:
        return 0.45


def test_the_uniform_branch_covers_negative_values() -> None:
    assert random_float(Fixed()) == -1e6 + (1e6 - -1e6) * 0.45 < 0
