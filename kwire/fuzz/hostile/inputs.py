"""The deterministic stream of inputs for one target.

Case ``k`` of target ``T`` under run seed ``S`` is always the same bytes: the generator is
seeded afresh every :data:`BLOCK` cases from ``(S, T, k // BLOCK)`` (seeding costs more than a
small decode, so not per case), which also makes any single case cheap to regenerate
(:func:`reproduce`).
"""
from __future__ import annotations

import random

from .mutations import mutate, random_input
from .target import Target

BLOCK = 64
RANDOM_SHARE = 0.12  # inputs made from nothing
UNCHANGED_SHARE = 0.02  # valid seeds as they are (they must decode, or fail with a kwire error)
FIXUP_SHARE = 0.75  # inputs whose checksums the target's fixup repairs after mutation


def block_random(seed: int, target_name: str, block: int) -> random.Random:
    return random.Random(f"kwire-hostile:{seed}:{target_name}:{block}")


def next_input(rng: random.Random, target: Target) -> bytes:
    seeds = target.seeds
    r = rng.random()
    if not seeds or r < RANDOM_SHARE:
        data = random_input(rng)
    elif r < RANDOM_SHARE + UNCHANGED_SHARE:
        return rng.choice(seeds)
    elif target.mutators and r < RANDOM_SHARE + UNCHANGED_SHARE + target.structural_share:
        data = rng.choice(target.mutators)(rng, rng.choice(seeds), seeds)
    else:
        data = mutate(rng, rng.choice(seeds), seeds)
    if target.fixup is not None and rng.random() < FIXUP_SHARE:
        data = target.fixup(data)
    return data


class InputStream:
    """Cases 0, 1, 2, ... of one target."""

    def __init__(self, target: Target, seed: int) -> None:
        self.target = target
        self.seed = seed
        self.case = 0
        self._rng: random.Random | None = None

    def next(self) -> tuple[int, bytes]:
        case = self.case
        if case % BLOCK == 0 or self._rng is None:
            self._rng = block_random(self.seed, self.target.name, case // BLOCK)
        self.case += 1
        return case, next_input(self._rng, self.target)


def reproduce(target: Target, seed: int, case: int) -> bytes:
    """The bytes of case ``case`` of ``target`` in a run with ``seed``."""
    stream = InputStream(target, seed)
    stream.case = case - case % BLOCK
    while True:
        index, data = stream.next()
        if index == case:
            return data
