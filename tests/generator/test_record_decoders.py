"""The two record decoders are emitted from one layout (kwire.generator.record_decoders).

What the decoders decode is held to other readers in tests/records (test_columns, test_interop,
test_corruption); here: the committed decoders are what the generator emits from
``generator/record_layout.py``, and the layout is Kafka's.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from kwire.generator import record_decoders
from kwire.generator.record_decoders import BEGIN, END, TARGETS, RegionError, rewrite
from kwire.generator.record_layout import HEADER, RECORD, Kind, min_size
from kwire.records import column_decoder
from tests.paths import KAFKA_RECORD_SCHEMA, REPO


def test_the_committed_decoders_are_what_the_layout_emits():
    assert record_decoders.stale_files(write=False) == [], \
        "run: python -m kwire.generator.record_decoders, then python -m kwire.generator.native_records"
    assert record_decoders.main(["--check", "-q"]) == 0


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.path.name)
def test_a_hand_edit_inside_a_region_is_found_and_undone(target):
    text = target.path.read_text()
    edited = text.replace("raise _overrun(\"key\"", "raise _overrun(\"the key\"", 1)
    assert edited != text
    assert rewrite(edited, target, "x.py") == text


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.path.name)
def test_a_region_without_its_end_is_refused(target):
    text = target.path.read_text()
    broken = text.replace(END, "# (marker removed)", 1)
    with pytest.raises(RegionError, match="never ends"):
        rewrite(broken, target, "x.py")
    with pytest.raises(RegionError, match="generated regions"):
        rewrite(text.replace(BEGIN, "# (marker removed)"), target, "x.py")


def test_the_varint_idiom_is_spelt_once_in_the_output():
    # five inline varints per record (length, two deltas, key and value lengths) in each decoder
    for target in TARGETS:
        text = target.path.read_text()
        assert text.count("(b >> 1) ^ -(b & 1)") == 2 * 5
        assert text.count("b = (b & 0x7F) | (c << 7)") == 5


def test_the_layout_is_kafkas():
    """Field order and kinds against the schema in DefaultRecord's class comment (Kafka 3.8.0)."""
    java = KAFKA_RECORD_SCHEMA.read_text()
    schema = [line.strip(" *").split(" => ") for line in java.splitlines() if " => " in line]
    spelled = {Kind.LENGTH: "Varint", Kind.INT8: "Int8", Kind.VARLONG: "Varlong", Kind.VARINT: "Varint",
               Kind.BYTES: "Bytes", Kind.STRING: "String", Kind.HEADERS: "[HeaderKey HeaderValue]"}
    ours = [(f.name.replace("_", ""), spelled[f.kind]) for f in RECORD] + \
           [("header" + f.name, spelled[f.kind]) for f in HEADER]
    assert [(name.lower(), kind) for name, kind in schema] == ours


def test_the_column_decoders_smallest_record_is_the_layouts():
    assert column_decoder.MIN_RECORD_SIZE == min_size(RECORD) == 7


def test_the_module_runs_as_a_command():
    proc = subprocess.run([sys.executable, "-m", "kwire.generator.record_decoders", "--check"],
                          capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0 and proc.stdout == "record decoders: up to date\n", proc.stderr
