"""Kafka's JSON form as its generated converters write it, for tests that compare kwire's with it."""
from __future__ import annotations

import base64
from typing import Any


def records_as_kafka_writes_them(mine: Any, sized: Any) -> Any:
    """kwire's dict with each ``records`` field as Kafka's converter writes it (``""``), after checking
    that the bytes kwire put there are as many as Kafka's ``recordsSizeInBytes`` says."""
    if isinstance(mine, list):
        return [records_as_kafka_writes_them(m, s) for m, s in zip(mine, sized, strict=True)]
    if not isinstance(mine, dict):
        return mine
    out = {}
    for key, value in mine.items():
        if key == "records" and value is not None:
            assert len(base64.b64decode(value, validate=True)) == sized["recordsSizeInBytes"]
            out[key] = ""
        else:
            out[key] = records_as_kafka_writes_them(value, sized[key])
    return out
