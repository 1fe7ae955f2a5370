"""One definition for every version: a newer release's definition with the versions it removed
restored from an older release's, and the proof that the merge lays out each version's bytes as
the release it came from did.

The merge starts from NEWER (its fields, names, comments-free JSON) and lowers ``validVersions``
to OLDER's lowest version. A field NEWER has whose ``versions`` (or ``nullableVersions``) no
longer reach the restored versions gets them back from OLDER's field of the same name, structs
followed. A field only OLDER has in the restored versions (one the newer release removed with
them, e.g. ListOffsetsRequest's MaxNumOffsets) is restored at OLDER's place for it, its versions
capped at the restored range (:func:`fields_only_older` lists them). Then the proof: for every
version, :func:`~kwire.generator.evolution.compat.wire_layout` of the merged definition must equal that of
NEWER (its versions) or OLDER (the restored ones), else a refusal names the version and the field
where the bytes part.

Only versions OLDER spoke as stable are restored (its ``latestVersionUnstable`` top is not), and
only below NEWER's lowest version.
"""
from __future__ import annotations

import copy
import json
from typing import Any

from ..definitions.errors import DefinitionError, Problem
from ..definitions.loader import load_text
from ..definitions.model import Message, Struct
from ..definitions.versions import MAX_VERSION, NONE, Versions
from .compat import _describe, _struct_layout, wire_layout


def _range_text(versions: Versions) -> str:
    if versions.empty:
        return "none"
    if versions.highest == MAX_VERSION:
        return f"{versions.lowest}+"
    return str(versions.lowest) if versions.lowest == versions.highest else f"{versions.lowest}-{versions.highest}"


def _restored(newer_text: str | None, older_text: str | None, restored: Versions, default: Versions) -> str | None:
    """NEWER's range with the restored versions OLDER's range had joined on below it."""
    newer = Versions.parse(newer_text, default)
    older = Versions.parse(older_text, default).intersect(restored)
    if older.empty or newer.contains(older):
        return newer_text
    if newer.empty:
        return _range_text(older)
    if older.highest + 1 < newer.lowest:
        return None  # a hole between the two: not one range
    return _range_text(Versions(min(older.lowest, newer.lowest), newer.highest))


def _merge_fields(newer: list[dict[str, Any]], older: list[dict[str, Any]], restored: Versions,
                  path: str, problems: list[Problem], source: str) -> list[dict[str, Any]]:
    by_name = {f["name"]: f for f in older}
    merged = []
    for field in newer:
        field = dict(field)
        twin = by_name.get(field["name"])
        if twin is not None:
            for key in ("versions", "nullableVersions"):
                if key in twin or key in field:
                    value = _restored(field.get(key), twin.get(key), restored, NONE)
                    if value is None:
                        problems.append(Problem(source, f"{path}{field['name']}",
                                                f"{key} of the two releases leave a hole"))
                    elif value != field.get(key):
                        field[key] = value
            if isinstance(field.get("fields"), list) and isinstance(twin.get("fields"), list):
                field["fields"] = _merge_fields(field["fields"], twin["fields"], restored,
                                                f"{path}{field['name']}.", problems, source)
        merged.append(field)
    names = {f["name"] for f in newer}
    for index, field in enumerate(older):
        if field["name"] in names or Versions.parse(field.get("versions"), NONE).intersect(restored).empty:
            continue
        # after the field OLDER has before it (or first), so the restored versions keep its place
        before = next((f["name"] for f in reversed(older[:index]) if f["name"] in {m["name"] for m in merged}), None)
        at = 0 if before is None else next(i for i, m in enumerate(merged) if m["name"] == before) + 1
        merged.insert(at, _capped(field, restored, f"{path}{field['name']}", problems, source))
    return merged


def _capped(field: dict[str, Any], restored: Versions, path: str, problems: list[Problem],
            source: str) -> dict[str, Any]:
    """OLDER's field (and its struct's fields) with every version range cut to the restored versions."""
    field = dict(field)
    if "tag" in field or "taggedVersions" in field:
        problems.append(Problem(source, path, "only the older release has this tagged field: restoring "
                                              "tagged fields is not supported"))
    for key in ("versions", "nullableVersions", "flexibleVersions"):
        if key in field:
            capped = Versions.parse(field[key], NONE).intersect(restored)
            if capped.empty and key != "versions":
                del field[key]
            else:
                field[key] = _range_text(capped)
    if isinstance(field.get("fields"), list):
        field["fields"] = [_capped(f, restored, f"{path}.{f['name']}", problems, source) for f in field["fields"]
                           if not Versions.parse(f.get("versions"), NONE).intersect(restored).empty]
    return field


def fields_only_older(merged_raw: dict[str, Any], newer_raw: dict[str, Any]) -> list[tuple[str, str]]:
    """(field path, versions) of each field the merge restored that NEWER does not have at all."""
    def walk(merged: list[dict[str, Any]], newer: list[dict[str, Any]], path: str) -> list[tuple[str, str]]:
        by_name = {f["name"]: f for f in newer}
        found = []
        for field in merged:
            twin = by_name.get(field["name"])
            if twin is None:
                found.append((f"{path}{field['name']}", field["versions"]))
            elif isinstance(field.get("fields"), list):
                found.extend(walk(field["fields"], twin.get("fields") or [], f"{path}{field['name']}."))
        return found

    found = walk(merged_raw["fields"], newer_raw["fields"], "")
    newer_common = {s["name"]: s for s in newer_raw.get("commonStructs", [])}
    for struct in merged_raw.get("commonStructs", []):
        newer_fields = newer_common.get(struct["name"], {}).get("fields", [])
        found.extend(walk(struct["fields"], newer_fields, f"{struct['name']}."))
    return found


def merge_definitions(newer_raw: dict[str, Any], older_raw: dict[str, Any], source: str = "<merge>") -> dict[str, Any]:
    """NEWER's definition (parsed JSON) with OLDER's removed versions restored; not yet proven."""
    newer_valid = Versions.parse(newer_raw["validVersions"])
    older_valid = Versions.parse(older_raw["validVersions"])
    if older_raw.get("latestVersionUnstable"):
        older_valid = Versions(older_valid.lowest, older_valid.highest - 1)
    problems: list[Problem] = []
    for key in ("name", "type", "apiKey"):
        if newer_raw.get(key) != older_raw.get(key):
            problems.append(Problem(source, key,
                                    f"the releases differ: {older_raw.get(key)!r} and {newer_raw.get(key)!r}"))
    if older_valid.empty or older_valid.lowest >= newer_valid.lowest:
        problems.append(Problem(source, "validVersions", f"the older release ({_range_text(older_valid)}) has no "
                                                         f"version below the newer one's ({_range_text(newer_valid)})"))
    if problems:
        raise DefinitionError(problems)
    restored = Versions(older_valid.lowest, newer_valid.lowest - 1)
    merged = copy.deepcopy(newer_raw)
    merged["validVersions"] = _range_text(Versions(older_valid.lowest, newer_valid.highest))
    if "deprecatedVersions" in older_raw:
        deprecated = Versions.parse(older_raw["deprecatedVersions"]).intersect(restored)
        if not deprecated.empty and "deprecatedVersions" not in newer_raw:
            merged["deprecatedVersions"] = _range_text(deprecated)
    merged["fields"] = _merge_fields(newer_raw["fields"], older_raw["fields"], restored, "", problems, source)
    common = {s["name"]: s for s in older_raw.get("commonStructs", [])}
    if merged.get("commonStructs"):
        merged["commonStructs"] = [
            {**s, "fields": _merge_fields(s["fields"], common[s["name"]]["fields"], restored, f"{s['name']}.",
                                          problems, source)} if s["name"] in common else s
            for s in merged["commonStructs"]]
    if problems:
        raise DefinitionError(problems)
    return merged


def prove_merge(merged: Message, newer: Message, older: Message) -> list[Problem]:
    """For every version of ``merged``: its wire layout equals that of the release it came from."""
    problems = []
    for version in merged.versions():
        origin = newer if version in newer.valid_versions else older
        if version not in origin.valid_versions:
            problems.append(Problem(merged.source, "validVersions", f"v{version} is in neither release"))
            continue
        if [kind for _, kind in wire_layout(merged, version)] != [kind for _, kind in wire_layout(origin, version)]:
            flexible = version in merged.flexible_versions
            field, was, now = _first_difference(origin, origin.struct, merged, merged.struct, version, flexible, "")
            problems.append(Problem(merged.source, field or "$",
                                    f"v{version}: {origin.source} has {was}, the merge has {now}"))
    return problems


def _first_difference(old: Message, old_struct: Struct, new: Message, new_struct: Struct, version: int,
                      flexible: bool, prefix: str) -> tuple[str, str, str]:
    """(field path, OLD's bytes, NEW's bytes) where the layouts part, looking inside arrays of
    structs (check-compat's layout stops at the array, which would name only the outer field)."""
    before = _struct_layout(old, old_struct, version, flexible, prefix)
    after = _struct_layout(new, new_struct, version, flexible, prefix)
    for (path_old, kind_old), (path_new, kind_new) in zip(before, after, strict=False):
        if kind_old == kind_new:  # the proof asks for equal layouts, not merely readable ones
            continue
        inner_old = _element_struct(old_struct, path_old, prefix)
        inner_new = _element_struct(new_struct, path_new, prefix)
        if inner_old is not None and inner_new is not None and kind_old[:2] == kind_new[:2]:
            return _first_difference(old, inner_old, new, inner_new, version, flexible, path_new + ".")
        return path_new or path_old, f"{_describe(kind_old)} ({path_old})", f"{_describe(kind_new)} ({path_new})"
    if len(before) > len(after):
        path, kind = before[len(after)]
        return path, f"{_describe(kind)} ({path})", "(end)"
    path, kind = after[len(before)] if len(after) > len(before) else (prefix.rstrip("."), ())
    return path, "(end)", f"{_describe(kind)} ({path})"


def _element_struct(struct: Struct, path: str, prefix: str) -> Struct | None:
    """The element struct of the array of structs at ``path`` (a field of ``struct``), if it is one."""
    name = path[len(prefix):]
    field = next((f for f in struct.fields if f.name == name), None)
    return field.struct if field is not None and field.type.is_array and field.struct is not None else None


def merge_and_prove(newer_raw: dict[str, Any], newer: Message, older_raw: dict[str, Any], older: Message,
                    source: str) -> tuple[dict[str, Any], Message]:
    """The merged definition (JSON and model), proven; DefinitionError names what disagrees."""
    raw = merge_definitions(newer_raw, older_raw, source)
    message = load_text(json.dumps(raw), source)
    problems = prove_merge(message, newer, older)
    if problems:
        raise DefinitionError(problems)
    return raw, message
