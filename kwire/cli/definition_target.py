"""The definition-file target of ``kwire fuzz --bytes``: ``kwire.generator.definitions.loader.load_text``
may raise only SchemaError. It lives in the command line, which composes the build-time generator
with the fuzz harness (neither imports the other).

Input bytes become text the way nothing is lost: UTF-8, with undecodable bytes kept as lone
surrogates (``surrogateescape``), so the loader also sees text no UTF-8 file could hold.
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

from kwire.fuzz.hostile.json_mutations import mutate_document
from kwire.fuzz.hostile.target import Target
from kwire.generator.definitions.loader import builtin_definitions_dir, definition_files
from kwire.wire.errors import SchemaError


def _decode_definition(data: bytes) -> None:
    from kwire.generator.definitions.loader import load_text

    load_text(data.decode("utf-8", "surrogateescape"), "<hostile>")


def mutate_definition(rng: random.Random, data: bytes, seeds: Sequence[bytes]) -> bytes:
    """A structural mutation of a (commented) definition; the seed itself when it does not parse."""
    from kwire.generator.definitions import jsonc

    try:
        document = jsonc.loads(data.decode("utf-8", "surrogateescape"))
    except ValueError:
        return data
    return mutate_document(rng, document).encode("utf-8", "surrogatepass")


def definition_texts() -> list[bytes]:
    """kwire's shipped definition files, plus kafka-python's when it is installed."""
    texts = [p.read_bytes() for p in definition_files([builtin_definitions_dir()])]
    try:
        import kafka.protocol.schemas as schemas
    except ImportError:
        return texts
    upstream = sorted((Path(schemas.__file__).parent / "resources").glob("*.json"))
    return texts + [p.read_bytes() for p in upstream[::4]]


def definition_targets() -> list[Target]:
    """The hostile-input target of the definition loader (added to ``kwire fuzz --bytes`` by the CLI)."""
    return [Target("definition", _decode_definition, definition_texts, allowed=(SchemaError,), weight=8,
                   mutators=(mutate_definition,), structural_share=0.6)]
