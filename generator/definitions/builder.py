"""Turn one schema-valid definition (a dict) into the model, enforcing Kafka's semantic rules.

The rules follow Kafka's generator (``MessageSpec``, ``StructSpec``, ``FieldSpec``,
``StructRegistry``, ``EntityType``, ``MessageDataGenerator`` and the metadata schema checker);
each violation becomes a :class:`Problem` naming the JSON path, and building goes on so that one
run reports everything wrong with a file.
"""
from __future__ import annotations

import re
import uuid
from itertools import pairwise
from typing import Any

from kwire.wire.uuids import UuidTextError, url_base64_decode, uuid_to_text

from .errors import Problem
from .jsonc import JsonFloat
from .model import Field, Message, Struct, parse_default
from .types import FieldType
from .versions import NONE, Versions

ENTITY_TYPES = {  # entityType -> the primitive type it must annotate (or be an array of)
    "unknown": None,
    "transactionalId": "string",
    "producerId": "int64",
    "groupId": "string",
    "topicName": "string",
    "brokerId": "int32",
}
API_KEYED_TYPES = ("request", "response", "metadata", "coordinator-key", "coordinator-value")
MAX_TAG = 2**31 - 1  # Kafka reads tags into a Java Integer


def as_bool(value: Any) -> bool:
    """Jackson's coercion: true/false, or the strings "true"/"false" in any case."""
    if isinstance(value, str):
        return value.lower() == "true"
    return bool(value)


def as_int(value: Any) -> int:
    return int(value)


def as_default(value: Any) -> str:
    """Kafka reads ``default`` as a string (a JSON number as its text); absent means ""."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, JsonFloat):
        return value.text
    return str(value)


def as_versions_text(value: Any) -> str | None:
    return None if value is None else str(value)


class _Builder:
    def __init__(self, raw: dict[str, Any], source: str, old_format: bool = False) -> None:
        self.raw = raw
        self.source = source
        self.old_format = old_format  # read as the Kafka release that wrote the file did
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []
        self.valid = NONE
        self.flexible = NONE
        self.inline_specs: dict[str, tuple[dict[str, Any], str, Versions]] = {}  # name -> (spec, path, versions)
        self.common_specs: dict[str, tuple[dict[str, Any], str, Versions]] = {}
        self.built: dict[str, Struct] = {}
        self.building: set[str] = set()

    def problem(self, path: str, message: str) -> None:
        self.problems.append(Problem(self.source, path, message))

    def warning(self, path: str, message: str) -> None:
        self.warnings.append(Problem(self.source, path, message))

    def versions(self, text: Any, path: str, what: str, default: Versions | None = None) -> Versions | None:
        try:
            return Versions.parse(as_versions_text(text), default)
        except ValueError as exc:
            self.problem(path, f"{what}: {exc}")
            return None

    # --- message ------------------------------------------------------------------------------
    def build(self) -> Message | None:
        raw = self.raw
        name = raw["name"]
        mtype = raw["type"]
        valid = self.versions(raw.get("validVersions"), "$.validVersions", "validVersions") or NONE
        if valid.open_ended:
            self.problem("$.validVersions", f"validVersions {valid} has no highest version; "
                                            f"write a bounded range such as \"{valid.lowest}-N\"")
        self.valid = valid
        api_key = as_int(raw["apiKey"]) if "apiKey" in raw else None
        if api_key is not None and not 0 <= api_key <= 0x7FFF:
            self.problem("$.apiKey", f"apiKey {api_key} is not a non-negative int16")
        if api_key is None and mtype in API_KEYED_TYPES:
            self.problem("$", f"a message of type {mtype!r} needs an apiKey")
        if mtype == "request" and not name.endswith("Request"):
            self.problem("$.name", f"request {name!r} must have a name ending in 'Request'")
        if mtype == "response" and not name.endswith("Response"):
            self.problem("$.name", f"response {name!r} must have a name ending in 'Response'")

        flexible = NONE
        if "flexibleVersions" not in raw:
            if valid.empty:
                pass  # Kafka ignores flexibleVersions of a message without versions (a retired apiKey)
            elif self.old_format:
                self.warning("$", "flexibleVersions is missing: read as \"none\" (never flexible), as Kafka did "
                                  "until it became required in Kafka 3.0 (KAFKA-12877); kwire generate "
                                  "requires it")
            else:
                self.problem("$", "flexibleVersions is required (use \"0+\" for a new message, "
                                  "\"none\" if never flexible)")
        else:
            flexible = self.versions(raw["flexibleVersions"], "$.flexibleVersions", "flexibleVersions", NONE) or NONE
            if not flexible.empty and not flexible.open_ended:
                self.problem("$.flexibleVersions", f"flexibleVersions {flexible} must be 'none' or open-ended (N+)")
        self.flexible = flexible

        deprecated = self.versions(raw.get("deprecatedVersions"), "$.deprecatedVersions", "deprecatedVersions",
                                   NONE) or NONE
        if not valid.contains(deprecated):
            self.problem("$.deprecatedVersions", f"deprecatedVersions {deprecated} lie outside validVersions {valid}")
        unstable = as_bool(raw.get("latestVersionUnstable", False))
        if unstable and mtype != "request":
            self.problem("$.latestVersionUnstable", "latestVersionUnstable is only valid for requests")
        listeners = tuple(raw.get("listeners") or ())
        if listeners and mtype != "request":
            self.problem("$.listeners", "listeners are only valid for requests")
        if mtype == "coordinator-key":
            if valid != Versions(0, 0):
                self.problem("$.validVersions", f"a coordinator-key must have validVersions \"0\", not {valid}")
            if not flexible.empty:
                self.problem("$.flexibleVersions", "a coordinator-key cannot be flexible")

        header_versions = self.header_versions(raw, mtype, valid)

        fields = raw.get("fields", [])
        self.register_structs(raw, valid)
        commons = tuple(s for s in (self.struct_named(n) for n in self.common_specs) if s is not None)
        top = self.build_struct(name, valid, fields, "$", top_level=True)
        if self.problems:
            return None
        return Message(
            name=name,
            type=mtype,
            api_key=api_key,
            valid_versions=valid,
            flexible_versions=flexible,
            struct=top,
            common_structs=commons,
            deprecated_versions=deprecated,
            latest_version_unstable=unstable,
            listeners=listeners,
            source=self.source,
            structs=dict(self.built),
            header_versions=header_versions,
        )

    def header_versions(self, raw: dict[str, Any], mtype: str, valid: Versions) -> tuple[tuple[Versions, int], ...]:
        """``headerVersions`` (newer Kafka): {"0-8": "1", "9+": "2"}, ranges contiguous from version 0
        to an open end, each mapped to a header version; only for requests and responses."""
        table = raw.get("headerVersions")
        if table is None:
            return ()
        path = "$.headerVersions"
        if mtype not in ("request", "response"):
            self.problem(path, "headerVersions is only valid for requests and responses")
            return ()
        if valid.empty:
            self.problem(path, "headerVersions must not be given for a message without validVersions")
            return ()
        if not table:
            self.problem(path, "headerVersions must not be empty")
            return ()
        entries: list[tuple[Versions, int]] = []
        for key, value in table.items():
            try:
                rng = Versions.parse(key, None)
            except ValueError:
                rng = None
            if rng is None or rng.empty:
                self.problem(path, f"{key!r} is not a version range")
                return ()
            entries.append((rng, as_int(value)))
        entries.sort(key=lambda e: e[0].lowest)
        if entries[0][0].lowest != 0:
            self.problem(path, f"the first range starts at version {entries[0][0].lowest}, not 0: the table must "
                               "cover every version, including retired ones")
        for (before, _), (after, _) in pairwise(entries):
            if before.open_ended or after.lowest != before.highest + 1:
                self.problem(path, f"ranges {before} and {after} are not contiguous")
        if not entries[-1][0].open_ended:
            self.problem(path, f"the last range {entries[-1][0]} must be open-ended (N+)")
        for rng, header in entries:
            if rng.lowest > valid.highest:
                self.problem(path, f"range {rng} starts above the highest valid version {valid.highest}")
            if header < 0 or header > 0x7FFF:
                self.problem(path, f"header version {header} for {rng} is not a non-negative int16")
        if mtype == "response" and raw.get("apiKey") is not None and as_int(raw["apiKey"]) == 18 \
                and any(header != 0 for _, header in entries):
            self.problem(path, "ApiVersionsResponse must use response header v0 at every version, so that "
                               "older clients can read it (KIP-511)")
        return tuple(entries)

    # --- struct registry ------------------------------------------------------------------------
    def register_structs(self, raw: dict[str, Any], valid: Versions) -> None:
        """Find every named struct (common and inline) before building, so order does not matter."""
        for i, common in enumerate(raw.get("commonStructs") or ()):
            path = f"$.commonStructs[{i}]"
            if not common["name"][:1].isupper():
                self.problem(f"{path}.name", f"common struct name {common['name']!r} must start with a capital letter")
                continue
            if common["name"] in self.common_specs:
                self.problem(path, f"common struct {common['name']} is defined twice")
                continue
            versions = self.versions(common.get("versions"), f"{path}.versions", "versions") or NONE
            self.common_specs[common["name"]] = (common, path, versions)
        references: list[tuple[str, str, str]] = []  # (struct name, field path, field name)
        for name, (common, path, versions) in self.common_specs.items():
            self.versions(common.get("deprecatedVersions"), f"{path}.deprecatedVersions", "deprecatedVersions", NONE)
            if not versions.empty and not valid.empty and versions.intersect(valid).empty:
                self.problem(f"{path}.versions", f"common struct {name} versions {versions} never overlap "
                                                 f"validVersions {valid}")
            self.collect_inline(common.get("fields", []), path, references)
        self.collect_inline(raw.get("fields", []), "$", references)
        if raw["name"] in self.common_specs or raw["name"] in self.inline_specs:
            self.problem("$.name", f"a struct is named {raw['name']}, like the message itself")
        for struct_name, path, field_name in references:
            if struct_name in self.inline_specs:
                self.problem(f"{path} ({field_name})",
                             f"refers to struct {struct_name}, which is defined inline at "
                             f"{self.inline_specs[struct_name][1]}; only commonStructs can be shared")

    def collect_inline(self, fields: list[dict[str, Any]], parent_path: str,
                       references: list[tuple[str, str, str]]) -> None:
        """Register the inline structs under ``fields``; note struct references for later checks."""
        for i, spec in enumerate(fields):
            path = f"{parent_path}.fields[{i}]"
            try:
                ftype = FieldType.parse(spec["type"])
            except ValueError:
                continue  # reported when the field itself is built
            struct_name = ftype.struct_name
            if struct_name is None:
                continue
            if "fields" not in spec:
                if struct_name not in self.common_specs:
                    references.append((struct_name, path, spec["name"]))
                continue
            if struct_name in self.common_specs:
                self.problem(f"{path} ({spec['name']})", f"re-specifies the common struct {struct_name} inline; "
                                   "refer to it without 'fields'")
                continue
            if struct_name in self.inline_specs:
                self.problem(f"{path} ({spec['name']})",
                             f"struct {struct_name} is defined twice (first at {self.inline_specs[struct_name][1]})")
                continue
            versions = _quiet_field_versions(spec)  # a bad range is reported when the field is built
            self.inline_specs[struct_name] = (spec, path, versions)
            self.collect_inline(spec["fields"], path, references)

    def struct_named(self, name: str) -> Struct | None:
        if name in self.built:
            return self.built[name]
        if name in self.building:
            return None  # a struct that contains itself; reported by the caller
        self.building.add(name)
        try:
            if name in self.common_specs:
                spec, path, versions = self.common_specs[name]
                struct = self.build_struct(name, versions, spec.get("fields", []), path, is_common=True)
            elif name in self.inline_specs:
                spec, path, versions = self.inline_specs[name]
                struct = self.build_struct(name, versions, spec["fields"], path,
                                           about=spec.get("about", ""))
            else:
                return None
        finally:
            self.building.discard(name)
        self.built[name] = struct
        return struct

    # --- structs and fields -------------------------------------------------------------------
    def build_struct(self, name: str, versions: Versions, specs: list[dict[str, Any]], path: str,
                     *, top_level: bool = False, is_common: bool = False, about: str = "") -> Struct:
        fields: list[Field] = []
        names: dict[str, str] = {}
        attrs: dict[str, str] = {}
        tags: dict[int, str] = {}
        for i, spec in enumerate(specs):
            fpath = f"{path}.fields[{i}]"
            built = self.build_field(spec, fpath, versions, top_level=top_level)
            if built is None:
                continue
            where = f"{fpath} ({built.name})"
            if built.name in names:
                self.problem(where, f"in {name}, field name {built.name} is used twice")
            elif built.attr_name in attrs:
                self.problem(where, f"in {name}, fields {attrs[built.attr_name]} and {built.name} "
                                    f"map to the same attribute {built.attr_name}")
            names[built.name] = fpath
            attrs[built.attr_name] = built.name
            if built.tag is not None:
                if built.tag in tags:
                    self.problem(where, f"in {name}, tag {built.tag} is used by both {tags[built.tag]} "
                                        f"and {built.name}")
                else:
                    tags[built.tag] = built.name
            fields.append(built)
        for expected in range(len(tags)):
            if expected not in tags:
                self.problem(path, f"in {name}, tags are not contiguous from 0: tag {expected} is unused "
                                   f"(used: {sorted(tags)})")
                break
        return Struct(name=name, versions=versions, fields=tuple(fields), is_common=is_common, about=about)

    def build_field(self, spec: dict[str, Any], path: str, parent_versions: Versions, *,
                    top_level: bool) -> Field | None:
        name = spec["name"]
        where = f"{path} ({name})"
        problems_before = len(self.problems)

        try:
            ftype = FieldType.parse(spec["type"])
        except ValueError as exc:
            self.problem(where, str(exc))
            return None

        tagged = self.versions(spec.get("taggedVersions"), where, "taggedVersions", NONE) or NONE
        versions = self.versions(spec.get("versions"), where, "versions", tagged if not tagged.empty else None)
        if versions is None:
            return None
        nullable = self.versions(spec.get("nullableVersions"), where, "nullableVersions", NONE) or NONE
        if not nullable.empty and not ftype.can_be_nullable:
            self.problem(where, f"type {ftype} cannot be nullable "
                                "(only string, bytes, records, structs and arrays can)")

        if "fields" in spec and not (ftype.is_struct or ftype.is_struct_array):
            self.problem(where, f"only struct and struct-array fields can have 'fields', not {ftype}")

        flexible_override = None
        if as_versions_text(spec.get("flexibleVersions")) not in (None, ""):  # Kafka: absent or "" = no override
            flexible_override = self.versions(spec["flexibleVersions"], where, "flexibleVersions")
            if ftype.name not in ("string", "bytes"):
                self.problem(where, "only string and bytes fields can override flexibleVersions")

        tag = as_int(spec["tag"]) if "tag" in spec else None
        map_key = as_bool(spec.get("mapKey", False))
        field_flexible = flexible_override if flexible_override is not None else self.flexible
        self.check_tag(where, ftype, tag, tagged, versions, nullable, map_key, field_flexible)
        if map_key and top_level:
            self.problem(where, "mapKey cannot be set on a top-level field, only inside an array's element struct")

        zero_copy = as_bool(spec.get("zeroCopy", False))
        if zero_copy and ftype.name != "bytes":
            self.problem(where, "zeroCopy is only valid on bytes fields")

        entity = spec.get("entityType", "unknown")
        expected = ENTITY_TYPES[entity]
        base = ftype.element if ftype.is_array else ftype
        if expected is not None and base is not None and base.name != expected:
            self.problem(where, f"entityType {entity} needs type {expected} (or an array of it), not {ftype}")

        self.check_overlaps(where, versions, nullable, tagged, flexible_override, parent_versions,
                            "the enclosing versions")
        if self.raw["type"] == "metadata" and parent_versions != self.valid:
            # Kafka's metadata schema checker holds every field of a record to validVersions.
            self.check_overlaps(where, versions, nullable, tagged, flexible_override, self.valid, "validVersions")

        default = as_default(spec.get("default"))
        if ftype.name == "uuid" and self.old_format:
            default = self.old_uuid_default(where, default)
        self.check_default(where, ftype, default, versions, nullable)

        struct = None
        if ftype.struct_name is not None:
            struct = self.struct_named(ftype.struct_name)
            if struct is None:
                if ftype.struct_name in self.building:
                    self.problem(where, f"struct {ftype.struct_name} contains itself")
                elif len(self.problems) == problems_before:
                    self.problem(where, f"struct {ftype.struct_name} is not defined here or in commonStructs")

        if len(self.problems) != problems_before:
            return None
        return Field(
            name=name, type=ftype, versions=versions, nullable_versions=nullable, tagged_versions=tagged,
            tag=tag, ignorable=as_bool(spec.get("ignorable", False)), default=default, map_key=map_key,
            entity_type=entity, zero_copy=zero_copy, flexible_versions=flexible_override,
            about=spec.get("about", ""), struct=struct, json_path=path,
        )

    def old_uuid_default(self, where: str, default: str) -> str:
        """A uuid default as the Kafka release that wrote the file read it, in the base64url form
        Kafka reads now: UUID text (java.util.UUID) before 2.8; from 2.8 (KAFKA-10618) base64url,
        of which the generator took the first 16 bytes without checking the length (the check
        came with Uuid.fromString later)."""
        if re.fullmatch(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", default):
            raw, how = uuid.UUID(default).bytes, "is UUID text, as Kafka read it before 2.8 (KAFKA-10618)"
        else:
            try:  # what Kafka 2.8's generator did: Base64.getUrlDecoder().decode, then two longs
                decoded = url_base64_decode(default.encode("latin-1", errors="replace"))
            except UuidTextError:
                return default
            if len(decoded) <= 16:
                return default  # 16 bytes is today's form; fewer is an error for check_default to report
            raw, how = decoded[:16], (f"decodes to {len(decoded)} bytes, of which Kafka 2.8's generator took the "
                                      f"first 16")
        text = uuid_to_text(uuid.UUID(bytes=raw))
        self.warning(where, f"uuid default {default!r} {how}; read as {text!r}, the base64url form Kafka "
                            f"reads now")
        return text

    def check_overlaps(self, where: str, versions: Versions, nullable: Versions, tagged: Versions,
                       flexible_override: Versions | None, scope: Versions, scope_name: str) -> None:
        """Version ranges that can never apply within ``scope`` are mistakes."""
        if scope.empty:
            return  # an empty enclosing range leaves nothing to compare against
        live = versions.intersect(scope)
        if live.empty:
            self.problem(where, f"versions {versions} never overlap {scope_name} {scope}")
            return
        if not nullable.empty and nullable.intersect(live).empty:
            self.problem(where, f"nullableVersions {nullable} never apply: the field only occurs in versions {live}")
        if not tagged.empty and tagged.intersect(live).empty:
            self.problem(where, f"taggedVersions {tagged} never apply: the field only occurs in versions {live}")
        if flexible_override is not None and not flexible_override.empty and flexible_override.intersect(live).empty:
            self.problem(where, f"flexibleVersions {flexible_override} never apply: "
                                f"the field only occurs in versions {live}")

    def check_tag(self, where: str, ftype: FieldType, tag: int | None, tagged: Versions, versions: Versions,
                  nullable: Versions, map_key: bool, field_flexible: Versions) -> None:
        if tag is None:
            if not tagged.empty:
                self.problem(where, f"taggedVersions {tagged} are given but no tag")
            return
        if not 0 <= tag <= MAX_TAG:
            self.problem(where, f"tag {tag} must be between 0 and {MAX_TAG}")
        if tagged.empty:
            self.problem(where, f"tag {tag} is given but no taggedVersions")
            return
        if map_key:
            self.problem(where, "a tagged field cannot be a mapKey")
        if ftype.name == "records":
            self.problem(where, "a records field cannot be tagged")
        if not tagged.open_ended:
            self.problem(where, f"taggedVersions {tagged} must be open-ended (N+)")
        if not versions.contains(tagged):
            self.problem(where, f"taggedVersions {tagged} must lie inside versions {versions}")
        if not field_flexible.contains(tagged):
            self.problem(where, f"taggedVersions {tagged} must lie inside the flexibleVersions {field_flexible}")
        overlap = nullable.intersect(tagged)
        if not overlap.empty and overlap != tagged:
            self.problem(where, f"nullableVersions {nullable} cover only part of taggedVersions {tagged}: "
                                "all tagged versions must be nullable, or none")

    def check_default(self, where: str, ftype: FieldType, default: str, versions: Versions, nullable: Versions) -> None:
        if default == "null":
            if ftype.is_primitive and ftype.name not in ("string", "bytes", "records"):
                self.problem(where, f"default null is not valid for type {ftype}")
                return
            if not nullable.contains(versions):
                self.problem(where, f"default is null but the field is not nullable in all its versions "
                                    f"(versions {versions}, nullableVersions {nullable})")
            return
        try:
            parse_default(ftype, default, False)
        except ValueError as exc:
            self.problem(where, str(exc))


def _quiet_field_versions(spec: dict[str, Any]) -> Versions:
    """A field's versions (taggedVersions when versions is absent), NONE when they do not parse."""
    try:
        tagged = Versions.parse(as_versions_text(spec.get("taggedVersions")), NONE)
        return Versions.parse(as_versions_text(spec.get("versions")), None if tagged.empty else tagged)
    except ValueError:
        return NONE


def build_message(raw: dict[str, Any], source: str, *,
                  old_format: bool = False) -> tuple[Message | None, list[Problem], list[Problem]]:
    """Build the model of one definition; returns (message or None, problems, warnings)."""
    builder = _Builder(raw, source, old_format)
    message = builder.build()
    return message, builder.problems, builder.warnings
