"""Writes cases.json: the messages, in Kafka's JSON form, that KafkaVectors.java turns into bytes.

The values are made from the release's own definition files (read from the Kafka git directory
at the tag), so every field a version has is set, whatever the message. Three cases per
(message, version):

* ``every field set``: each field the version has (old-version-only fields included), struct
  arrays of two elements, tagged fields set;
* ``extremes``: arrays of three, integers at both ends of their range (int64 beyond 2^53),
  non-ASCII strings;
* ``nulls and empties``: nullable fields null, strings and bytes empty, the top-level arrays of
  one element whose own arrays are empty (or null where nullable);

and, for the messages that carry records (Produce v0-2, Fetch v0-3), a fourth,
``real message sets``: as the first, with each ``records`` field a message set that Kafka's
``MemoryRecords`` writes at the magic those versions carry (KafkaVectors.java makes it from the
placeholder ``"@records magic=M"``).

    KAFKA_GIT=/path/to/kafka.git python3 make_cases.py > cases.json

Written for kwire; only Kafka's definition facts (names, types, versions) are read.
"""
from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from typing import Any

TAG = os.environ.get("KAFKA_TAG", "3.8.0")
KAFKA_GIT = os.environ.get("KAFKA_GIT", "/work/.mirror/apache+kafka/repo")
DEFINITIONS = "clients/src/main/resources/common/message"

# (message, versions): Kafka 4.0 removed these versions (KIP-896) or the whole API; kwire keeps them.
PAIRS: list[tuple[str, range]] = []


def _both(api: str, versions: range) -> None:
    PAIRS.extend([(api + "Request", versions), (api + "Response", versions)])


PAIRS.append(("RequestHeader", range(0, 1)))
_both("Produce", range(0, 3))
_both("Fetch", range(0, 4))
for _api in ("AlterReplicaLogDirs", "CreateAcls", "DeleteAcls", "DeleteTopics", "DescribeAcls",
             "DescribeConfigs", "DescribeLogDirs", "ListOffsets", "OffsetFetch",
             "RenewDelegationToken", "WriteTxnMarkers", "CreateDelegationToken",
             "DescribeDelegationToken", "ExpireDelegationToken"):
    _both(_api, range(0, 1))
for _api in ("CreateTopics", "OffsetCommit", "OffsetForLeaderEpoch", "AlterPartition"):
    _both(_api, range(0, 2))
# APIs Kafka 4.0 removed whole (ZooKeeper-era controller traffic): every version 3.8.0 had.
_both("LeaderAndIsr", range(0, 8))
_both("StopReplica", range(0, 5))
_both("UpdateMetadata", range(0, 9))
_both("ControlledShutdown", range(0, 4))

INT_RANGES = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}


def definition(name: str) -> dict[str, Any]:
    text = subprocess.run(
        ["git", f"--git-dir={KAFKA_GIT}", "show", f"{TAG}:{DEFINITIONS}/{name}.json"],
        check=True, capture_output=True, text=True).stdout
    return json.loads(re.sub(r"^\s*//.*$", "", text, flags=re.M))


def in_versions(spec: str | None, version: int) -> bool:
    if spec is None or spec == "none":
        return False
    if spec.endswith("+"):
        return version >= int(spec[:-1])
    low, _, high = spec.partition("-")
    return int(low) <= version <= int(high or low)


class Maker:
    def __init__(self, spec: dict[str, Any], version: int, variant: str) -> None:
        self.structs = {s["name"]: s for s in spec.get("commonStructs", [])}
        self.version = version
        self.flexible = in_versions(spec.get("flexibleVersions"), version)
        self.variant = variant
        self.counter = 0
        # the message format of Produce v0-1 / Fetch v0-1 is magic 0; v2 (and Fetch v3) magic 1 (KIP-32)
        self.magic = 0 if version < 2 else 1

    def struct(self, fields: list[dict[str, Any]], depth: int, index: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for field in fields:
            tagged = "taggedVersions" in field
            if not in_versions(field["versions"], self.version):
                continue
            if tagged and not (self.flexible and in_versions(field["taggedVersions"], self.version)):
                continue
            if tagged and self.variant == "nulls":
                continue  # tagged fields at their defaults are left out of the JSON form
            out[field["name"][0].lower() + field["name"][1:]] = self.value(field, field["type"], depth, index)
        return out

    def nullable(self, field: dict[str, Any]) -> bool:
        return in_versions(field.get("nullableVersions"), self.version)

    def value(self, field: dict[str, Any], kind: str, depth: int, index: int) -> Any:
        self.counter += 1
        n = self.counter
        if self.variant == "nulls" and self.nullable(field) and kind not in INT_RANGES:
            return None
        if kind.startswith("[]"):
            element = kind[2:]
            count = {"full": 2, "real records": 2, "extremes": 3, "nulls": 1 if depth == 0 else 0}[self.variant]
            return [self.element(field, element, depth + 1, i) for i in range(count)]
        if kind in INT_RANGES or kind == "uint16":
            bits = INT_RANGES.get(kind, 16)
            if self.variant == "extremes":
                low, high = (0, 2**16 - 1) if kind == "uint16" else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
                return [high, low, n % 100][index % 3]
            if self.variant == "nulls":
                return 0 if index % 2 == 0 else -1 if kind != "uint16" else 1
            return (n * 37 + index) % (2 ** (bits - 1) - 1) + (2**40 if kind == "int64" else 0)
        if kind == "bool":
            return (n + index) % 2 == 0 if self.variant != "nulls" else False
        if kind == "float64":
            return [1.5, -0.25, 1e300][index % 3]
        if kind == "string":
            if self.variant == "nulls":
                return ""
            suffix = "é€𝄞" if self.variant == "extremes" else ""
            return f"{field['name'].lower()}-{n}-{index}{suffix}"
        if kind == "records" and self.variant == "real records":
            return f"@records magic={self.magic}"
        if kind in ("bytes", "records"):
            if self.variant == "nulls":
                return ""
            return base64.b64encode(bytes((n + i) % 256 for i in range(3 + index))).decode()
        if kind == "uuid":
            if self.variant == "nulls":
                return "AAAAAAAAAAAAAAAAAAAAAA"
            raw = bytes((n * 7 + i * 13 + index) % 256 for i in range(16))
            return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
        # a struct: inline fields, or a common struct by name
        fields = field.get("fields") or self.structs[kind]["fields"]
        return self.struct(fields, depth, index)

    def element(self, field: dict[str, Any], kind: str, depth: int, index: int) -> Any:
        if kind in INT_RANGES or kind in ("bool", "string", "bytes", "uuid", "float64", "uint16"):
            plain = {k: v for k, v in field.items() if k != "nullableVersions"}
            return self.value(plain, kind, depth, index)
        fields = field.get("fields") or self.structs[kind]["fields"]
        return self.struct(fields, depth, index)


WHY = {
    "full": "every field set: old-version-only fields, struct arrays of two, tagged fields",
    "extremes": "extremes: arrays of three, integers at both ends of their range, non-ASCII strings",
    "nulls": "nulls and empties: nullable fields null, empty strings and bytes, nested arrays empty",
    "real records": "real message sets: every field set, records written by Kafka's MemoryRecords",
}
CARRY_RECORDS = {"ProduceRequest", "FetchResponse"}


def main() -> None:
    cases = []
    for name, versions in PAIRS:
        spec = definition(name)
        for version in versions:
            assert in_versions(spec["validVersions"], version), (name, version)
            variants = ["full", "extremes", "nulls"] + (["real records"] if name in CARRY_RECORDS else [])
            for variant in variants:
                maker = Maker(spec, version, variant)
                cases.append({"message": name, "version": version, "why": WHY[variant],
                              "json": maker.struct(spec["fields"], 0, 0)})
    sys.stdout.write("[\n" + ",\n".join(json.dumps(case, ensure_ascii=False) for case in cases) + "\n]\n")


if __name__ == "__main__":
    main()
