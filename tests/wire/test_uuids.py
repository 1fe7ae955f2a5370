"""The one uuid text codec (kwire.wire.uuids) against Kafka's own ``Uuid.fromString``, and every
reader of uuid text in kwire going through it (issue 35 §2)."""
from __future__ import annotations

import base64
import random
import uuid

import pytest

from kwire.features.dynamic_voters import parse_dynamic_voters
from kwire.features.errors import FeatureError
from kwire.generated import TopicRecord
from kwire.generator.definitions.model import parse_default
from kwire.generator.definitions.types import FieldType
from kwire.wire.errors import DecodeError
from kwire.wire.uuids import UuidTextError, url_base64_decode, uuid_from_text, uuid_to_text
from tests.paths import KAFKA_UUID


def kafkas_verdicts() -> list[tuple[str, str, str]]:
    """(text, "accept" or "refuse", the uuid's 32 hex digits or Kafka's message), one per probe."""
    rows = []
    for line in KAFKA_UUID.read_text(encoding="utf-8").splitlines():
        hex_text, verdict, detail = line.split("\t")
        rows.append((bytes.fromhex(hex_text).decode("utf-8"), verdict, detail))
    return rows


def kwires_verdict(text: str) -> tuple[str, str]:
    try:
        return "accept", uuid_from_text(text).hex
    except UuidTextError as err:
        return "refuse", str(err)


def test_kwire_accepts_and_refuses_every_probe_as_kafkas_uuid_does_with_its_message():
    rows = kafkas_verdicts()
    assert len(rows) == 517 and sum(verdict == "accept" for _, verdict, _ in rows) == 77
    differ = [(text, kwires_verdict(text), (verdict, detail)) for text, verdict, detail in rows
              if kwires_verdict(text) != (verdict, detail)]
    assert differ == []


@pytest.mark.parametrize(("text", "accepted"), [
    ("A" * 22 + "==", True),  # 24 characters: the longest accepted
    ("A" * 22 + "===", False),  # one past: too long
    ("A" * 22, True),  # 16 bytes
    ("A" * 21, False),  # one character short: a dangling last unit
    ("A" * 23, False),  # one character more: 17 bytes
    ("A" * 22 + "=", False),  # padding, but not to a whole unit
    ("A" * 20 + "+/", False),  # the standard alphabet's 62 and 63
    ("A" * 20 + "-_", True),  # the URL-safe alphabet's
])
def test_at_the_bounds_of_length_and_alphabet_kwire_says_what_kafka_says(text, accepted):
    [(verdict, detail)] = [(verdict, detail) for each, verdict, detail in kafkas_verdicts() if each == text]
    assert verdict == ("accept" if accepted else "refuse")
    assert kwires_verdict(text) == (verdict, detail)


def test_text_round_trips_for_every_uuid_kafka_accepted():
    for _text, verdict, detail in kafkas_verdicts():
        if verdict == "accept":
            value = uuid.UUID(hex=detail)
            assert uuid_from_text(uuid_to_text(value)) == value and len(uuid_to_text(value)) == 22


def test_from_dict_refuses_text_kafka_refuses():
    # the wire core's old reader padded and decoded leniently: this was the all-zero uuid
    with pytest.raises(DecodeError) as raised:
        TopicRecord.from_dict({"name": "t", "topicId": "AAAAAAAAAAA!!!!AAAAAAAAAAA"}, 0)
    assert raised.value.path == "topic_id"
    assert raised.value.reason == ("invalid uuid value 'AAAAAAAAAAA!!!!AAAAAAAAAAA': Input string with prefix "
                                   "`AAAAAAAAAAA!!!!AAAAAAAAA` is too long to be decoded as a base64 UUID")


def test_every_reader_of_uuid_text_agrees_with_kafka():
    uuid_type = FieldType.parse("uuid")
    readers = {
        "json form": lambda text: TopicRecord.from_dict({"name": "t", "topicId": text}, 0).topic_id,
        "definition default": lambda text: parse_default(uuid_type, text, False),
        "--initial-controllers": lambda text: parse_dynamic_voters(f"1@h:1:{text}").voters[0].directory_id,
    }
    disagree = []
    for text, verdict, detail in kafkas_verdicts():
        if not text or text != text.strip() or any(c in text for c in ",:@"):
            continue  # empty (a default's "no value") or what the voter list splits on or trims
        for name, read in readers.items():
            try:
                got = ("accept", read(text).hex)
            except (DecodeError, ValueError, FeatureError):
                got = ("refuse", "")
            if got != (verdict, detail if verdict == "accept" else ""):
                disagree.append((name, text, got[0]))
    assert disagree == []


@pytest.mark.parametrize("value", [[True], 7, None, b"AAAAAAAAAAAAAAAAAAAAAA"])
def test_a_value_that_is_not_text_is_refused_as_uuid_text(value):
    # found by the hostile JSON-form run: a list where a uuid stands raised AttributeError
    with pytest.raises(UuidTextError, match=f"expected a string, got {type(value).__name__}"):
        uuid_from_text(value)


def test_url_base64_decode_agrees_with_python_for_every_tail_length() -> None:
    """JDK's URL decoder reads unpadded and padded text alike; Python's ``urlsafe_b64decode`` (padded)
    is the oracle. Lengths 1 to 18 take every tail (one, two or no bytes after the last full unit).
    Kills ``kwire.wire.uuids.x_url_base64_decode__mutmut_84`` (a two-byte tail's second byte)."""
    rng = random.Random(84)
    for size in range(1, 19):
        data = rng.randbytes(size)
        padded = base64.urlsafe_b64encode(data)
        assert url_base64_decode(padded) == base64.urlsafe_b64decode(padded) == data
        assert url_base64_decode(padded.rstrip(b"=")) == data
