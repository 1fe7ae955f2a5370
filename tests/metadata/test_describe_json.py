"""``kwire metadata describe``'s JSON and summary, checked against Kafka's own names and forms.

* the voters' endpoints and kraft.version ranges: Kafka's JSON form of the VotersRecord whose bytes
  Kafka wrote (``tests/data/kafka-json/messages.json``, ``VotersRecordJsonConverter``);
* each ACL's keys: the fields of Kafka 4.2.1's ``AccessControlEntryRecord.json``, camel-cased as
  Kafka's JSON converters name them (``JsonConverterGenerator``: the field name, first letter lower case);
* a config resource type is named as Kafka's ``ConfigResource.Type`` names it (TOPIC is 2), and
  a number Kafka does not define is shown as the number;
* a log without a FeatureLevelRecord: Kafka's image takes metadata.version 3.0-IV1
  (``MetadataVersion.MINIMUM_KRAFT_VERSION``).
"""
from __future__ import annotations

import json
import re
import uuid
from dataclasses import replace

from kwire.generated import MESSAGES, VotersRecord
from kwire.metadata.describe import image_to_json, summary_lines
from kwire.metadata.image import MetadataImage
from kwire.metadata.quorum_delta import QuorumDelta
from kwire.metadata.replay import MetadataReplayer
from tests.paths import DATA

KAFKA_JSON = DATA / "kafka-json" / "messages.json"
ACL_DEFINITION = DATA / "kafka-definitions" / "kafka-4.2.1" / "metadata" / "AccessControlEntryRecord.json"


def _without_comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))


def test_voters_carry_kafkas_endpoints_and_kraft_version_ranges():
    """Kills ``describe.x_image_to_json__mutmut_193`` and ``_201`` (``endpoints``, ``kraftVersion`` renamed)."""
    case = next(c for c in json.loads(KAFKA_JSON.read_text()) if c["message"] == "VotersRecord")
    kafka = json.loads(case["kafka_json"])
    delta = QuorumDelta(MetadataImage().quorum)
    delta.replay_voters(VotersRecord.decode(bytes.fromhex(case["hex"]), case["version"]))
    described = image_to_json(replace(MetadataImage(), quorum=delta.apply()))["quorum"]["voters"]
    assert len(described) == len(kafka["voters"]) == 1
    for ours, theirs in zip(described, kafka["voters"], strict=True):
        assert ours["endpoints"] == theirs["endpoints"]
        feature = theirs["kRaftVersionFeature"]
        assert ours["kraftVersion"] == {"min": feature["minSupportedVersion"], "max": feature["maxSupportedVersion"]}


def test_acls_are_named_as_kafkas_json_form_of_their_record():
    """Kills ``describe.x_image_to_json__mutmut_109`` and ``_120`` (``acls``, ``patternType`` renamed)."""
    fields = json.loads(_without_comments(ACL_DEFINITION.read_text()))["fields"]
    kafka_names = [f["name"][0].lower() + f["name"][1:] for f in fields]
    replayer = MetadataReplayer()
    replayer.replay(MESSAGES["AccessControlEntryRecord"](
        id=uuid.UUID(int=7), resource_type=2, resource_name="t", pattern_type=3, principal="User:alice", host="*",
        operation=3, permission_type=3))
    [acl] = image_to_json(replayer.image)["acls"]
    assert list(acl) == kafka_names
    assert (acl["patternType"], acl["principal"]) == (3, "User:alice")


def test_config_resource_types_by_kafkas_names_and_unknown_ones_by_number():
    """Kills ``describe.x_image_to_json__mutmut_73`` (an unknown type shown as null)."""
    replayer = MetadataReplayer()
    for kind in (2, 99):
        replayer.replay(MESSAGES["ConfigRecord"](resource_type=kind, resource_name="r", name="retention.ms", value="1"))
    assert [c["resourceType"] for c in image_to_json(replayer.image)["configs"]] == ["TOPIC", 99]


def test_a_log_without_metadata_version_says_which_one_is_assumed():
    """Kills ``describe.x_summary_lines__mutmut_4``."""
    lines = summary_lines(MetadataImage())
    assert "metadata.version: unset (3.0-IV1 assumed)" in lines
    replayer = MetadataReplayer()
    replayer.replay(MESSAGES["FeatureLevelRecord"](name="metadata.version", feature_level=21))
    assert "metadata.version: level 21" in summary_lines(replayer.image)
    assert not any(re.search(r"metadata\.version: .*None", line) for line in summary_lines(replayer.image))
