"""The static classification and the directed search in the cases the sweep's own tests leave out:
a struct that differs only by its unknown tagged fields, unknown tags at a non-flexible version, and
the instance a demonstration hands back. Plus the pieces of the hostile run those tests do not look at.

The expectations come from Kafka's generated writers: a field a version lacks is dropped when it is
``ignorable`` (with whatever it holds, tagged fields included) and refused otherwise; tagged fields
at a version that is not flexible are refused (``UnsupportedVersionException``: "Tagged fields were
set, but version N of this message does not support them"). Each case is also written and read back
through the codec, so the classification is compared with what actually happens.
"""
from __future__ import annotations

import importlib
import json
import random
import sys

import pytest

from kwire.cli.main import main
from kwire.fuzz.baseline import cell_class
from kwire.fuzz.diff import UNKNOWN_TAGS
from kwire.fuzz.directed import demonstrate
from kwire.fuzz.hostile.json_mutations import _mutate_once
from kwire.fuzz.hostile.record_inputs import mutate_records
from kwire.fuzz.hostile.registry import all_targets, select
from kwire.fuzz.matrix import OUTCOMES, convert
from kwire.fuzz.static import TAGS, classify
from kwire.generated import ApiVersionsResponse

# Extra exists from v1 on; the only field inside it exists from v2 on: at v1 it can differ from its
# default only by the unknown tagged fields it carries (every version is flexible).
TAGS_PROBE = {
    "apiKey": 91, "type": "request", "name": "TagsProbeRequest", "validVersions": "0-2", "flexibleVersions": "0+",
    "fields": [
        {"name": "Name", "type": "string", "versions": "0+", "about": "a name"},
        {"name": "Extra", "type": "ExtraData", "versions": "1+", "ignorable": True, "about": "a struct",
         "fields": [{"name": "Later", "type": "int32", "versions": "2+", "about": "a later field"}]},
    ],
}


@pytest.fixture
def tags_probe(tmp_path, monkeypatch):
    defs = tmp_path / "defs"
    defs.mkdir()
    (defs / "TagsProbeRequest.json").write_text(json.dumps(TAGS_PROBE))
    assert main(["generate", "-q", "--defs", str(defs), "--out", str(tmp_path / "tagsprobe")]) == 0
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module("tagsprobe").MESSAGES["TagsProbeRequest"]
    for name in [m for m in sys.modules if m.split(".")[0] == "tagsprobe"]:
        del sys.modules[name]


def test_a_struct_that_differs_only_by_unknown_tags_is_losable_only_with_them(tags_probe):
    """Kills ``static.x_classify__mutmut_16`` (whether tags can vary asked of None, never flexible)."""
    assert classify(tags_probe, 1, 0, unknown_tags=True).losable == ("extra",)
    assert classify(tags_probe, 1, 0).losable == ()
    # what the codec does: the tags inside Extra come back at v1, and are gone at v0
    obj = tags_probe(name="n")
    obj.extra.unknown_tagged_fields = ((5, b"\x01\x02"),)
    assert tags_probe.decode(obj.encode(1), 1) == obj
    outcome, details = convert(tags_probe, obj, 0)
    assert outcome == "lossy" and details and all(d.startswith("extra") for d in details)


@pytest.mark.parametrize("path", [UNKNOWN_TAGS, f"api_keys[].{UNKNOWN_TAGS}"])
def test_unknown_tags_are_demonstrated_refused_at_a_non_flexible_version(path):
    """ApiVersionsResponse is flexible from v3: unknown tags, at the top or in an element, make v2
    refuse (kills ``directed.x__set_along__mutmut_7``: the tags drawn for None)."""
    shown = demonstrate(ApiVersionsResponse, 3, 2, path, TAGS)
    assert shown.shown, shown.detail
    holder = shown.instance if path == UNKNOWN_TAGS else shown.instance.api_keys[0]
    assert holder.unknown_tagged_fields
    assert ApiVersionsResponse.decode(shown.instance.encode(3), 3) == shown.instance
    assert convert(ApiVersionsResponse, shown.instance, 2)[0] == "refused"


def test_a_demonstrated_loss_hands_back_the_instance_that_shows_it():
    """ThrottleTimeMs is ``ignorable`` and exists from v1 (ApiVersionsResponse.json): v1 -> v0 drops
    it (kills ``directed.x_demonstrate__mutmut_51``: the instance not handed back)."""
    shown = demonstrate(ApiVersionsResponse, 1, 0, "throttle_time_ms")
    assert shown.shown and shown.detail.startswith("lost: throttle_time_ms")
    assert shown.instance.throttle_time_ms != 0
    back = ApiVersionsResponse.decode(shown.instance.encode(0), 0)
    assert back.throttle_time_ms == 0 and back.api_keys == shown.instance.api_keys


@pytest.mark.parametrize("outcome", OUTCOMES)
def test_a_cell_without_a_static_classification_is_its_observed_outcome(outcome):
    """A baseline cell from before the static classification: its class is what was observed
    (kills ``baseline.x_cell_class__mutmut_14``: the missing static outcome's default)."""
    assert cell_class({"outcome": outcome}) == outcome
    assert cell_class({"outcome": outcome, "static": {"outcome": "refused"}}) == max(
        outcome, "refused", key=OUTCOMES.index)


def test_the_integer_mutation_changes_integers_and_leaves_booleans_alone():
    """JSON's integers get +-1, +-2**31 and +2**64; booleans are not integers there (kills
    ``hostile.json_mutations.x__mutate_once__mutmut_42``: the branch given booleans only)."""
    steps = {-1, 1, -2**31, 2**31, 2**64}
    stepped_ints, stepped_bools = set(), set()
    for seed in range(3000):
        root = [{"n": 1000, "b": True}]
        _mutate_once(random.Random(seed), root)
        if isinstance(root[0], dict):
            if isinstance(root[0].get("n"), int) and root[0]["n"] - 1000 in steps:
                stepped_ints.add(root[0]["n"] - 1000)
            b = root[0].get("b")
            if type(b) is int and b - 1 in steps - {-1}:  # 0 is also one of INTERESTING_VALUES
                stepped_bools.add(b - 1)
    assert stepped_ints == steps
    assert stepped_bools == set()


def test_every_batch_target_gets_record_aware_mutations():
    """The file reader, like the two batch readers, is fed batches mutated field by field
    (``mutate_records``), not only random bytes (kills ``hostile.record_targets.x_record_targets__mutmut_39``)."""
    for name in ("records:reader", "records:reader-nocrc", "records:file"):
        (target,) = select(all_targets(), [name])
        assert target.mutators == (mutate_records,), name
