"""The definition-file target: ``generator.loader.load_text`` may raise only SchemaError.

Input bytes become text the way nothing is lost: UTF-8, with undecodable bytes kept as lone
surrogates (``surrogateescape``), so the loader also sees text no UTF-8 file could hold.
"""
from __future__ import annotations

import random
from collections.abc import Sequence

from ...errors import SchemaError
from . import corpus
from .json_mutations import mutate_document
from .target import Target


def _decode_definition(data: bytes) -> None:
    from generator.loader import load_text

    load_text(data.decode("utf-8", "surrogateescape"), "<hostile>")


def mutate_definition(rng: random.Random, data: bytes, seeds: Sequence[bytes]) -> bytes:
    """A structural mutation of a (commented) definition; the seed itself when it does not parse."""
    from generator import jsonc

    try:
        document = jsonc.loads(data.decode("utf-8", "surrogateescape"))
    except ValueError:
        return data
    return mutate_document(rng, document).encode("utf-8", "surrogatepass")


def definition_targets() -> list[Target]:
    return [Target("definition", _decode_definition, corpus.definition_texts, allowed=(SchemaError,), weight=8,
                   mutators=(mutate_definition,), structural_share=0.6)]
