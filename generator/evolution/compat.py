"""Compare two generations of message definitions and list the changes that break compatibility.

Only the versions OLD already had ("existing versions") matter: anything confined to brand-new
versions is how Kafka evolves messages and is fine. Within the existing versions a change breaks
either data already written (KRaft records, coordinator logs, state files) or peers already
deployed (the other side of a request/response). Fields match by name within their struct (or, for
a renamed field, by its place and type), and structs are followed through every struct and
struct-array field, inline or common, so a change deep inside ``Topics[].Partitions[]`` is found
with its full path.

Each finding has a level, in the manner of buf's breaking-change categories:

- ``wire``: the bytes of an existing version changed. Judged on the wire layout of each version
  (:func:`wire_layout`), so a change that leaves every byte alone (a rename, a struct inlined in
  non-flexible versions, another ``about``) is never a wire finding.
- ``json``: Kafka's JSON form of the message changed (field names, nesting, the value a reader
  fills in where a version lacks a field); quorum-state files and tools' output are this JSON.
- ``api``: the names and defaults of the generated Python classes changed.

Checking at one level reports the findings of that level and below; the others are notes.

Everything here is a pure function of two :class:`~kwire.generator.definitions.model.Message` objects; reading
files and printing belong to ``kwire.cli.commands.check_compat``.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, cast

from ..definitions.model import Field, Message, Struct, parse_default
from ..definitions.types import FieldType
from ..definitions.versions import NONE, Versions, intersect_all, merge, minus, minus_all, segments

LEVELS = ("wire", "json", "api")

# rule id -> what it flags; the ids are stable, machines match on them.
RULES: dict[str, str] = {
    "message-removed": "a message of OLD is missing from NEW",
    "api-key-changed": "the apiKey changed",
    "message-type-changed": "the message type changed",
    "versions-removed": "existing versions are gone (and were not deprecated in OLD)",
    "flexible-versions-changed": "an existing version became flexible or stopped being flexible",
    "field-removed": "a field is missing from existing versions it had",
    "untagged-field-added": "a non-tagged field appears in an existing version",
    "field-type-changed": "a field's type changed",
    "field-order-changed": "non-tagged fields of an existing version are in another order",
    "nullable-versions-shrunk": "a field is no longer nullable in existing versions",
    "nullable-versions-grown": "a field became nullable in existing versions",
    "default-changed": "a field's default value changed",
    "tag-renumbered": "a tagged field got another tag",
    "tag-reused": "a tag of one field now belongs to another field",
    "tagged-versions-changed": "a field moved between the tagged section and the fixed part",
    "wire-layout-changed": "the bytes of an existing version changed in a way no other rule names",
    "field-renamed": "a field has another name (JSON key and Python attribute; the bytes are the same)",
    "struct-renamed": "a struct has another name (its generated Python class; the bytes are the same)",
    "message-renamed": "the message has another name (its generated Python class)",
}

# Rules about a message as a whole: the wire layout of its fields does not judge them.
MESSAGE_RULES = frozenset({"message-removed", "api-key-changed", "message-type-changed", "versions-removed",
                           "message-renamed"})

# A field that stays but moves (another place among the untagged fields, another tag) is read from
# where another field's value was written: bytes already written decode to other values even when
# the layout's kinds agree (two int32 fields swapped), so the layout does not excuse these.
MOVED_FIELD_RULES = frozenset({"field-order-changed", "tag-renumbered"})

ABSENT = "(absent)"


@dataclass(frozen=True)
class Finding:
    """One incompatible change, located well enough to fix it and explained well enough to judge it."""

    file: str  # the NEW definition (OLD's when the message was removed)
    old_file: str
    message: str
    path: str  # field path such as Topics[].Partitions[].Replicas; "" for the message itself
    rule: str
    versions: str  # the existing versions affected, e.g. "0" or "0-3, 5"
    old: str
    new: str
    reason: str
    level: str = "wire"  # the lowest of LEVELS at which this is incompatible

    def to_dict(self) -> dict[str, str]:
        return asdict(self)

    @property
    def where(self) -> str:
        return f"{self.message}.{self.path}" if self.path else self.message

    def applies_at(self, level: str) -> bool:
        """Whether checking at ``level`` counts this as incompatible (otherwise it is a note)."""
        return LEVELS.index(self.level) <= LEVELS.index(level)

    def __str__(self) -> str:
        at = f" at v{self.versions}" if self.versions else ""
        return f"{self.file}: {self.where}: {self.rule}{at}: {self.old} -> {self.new}\n    {self.reason}"

    def as_note(self) -> str:
        at = f" at v{self.versions}" if self.versions else ""
        return (f"note: {self.file}: {self.where}: {self.rule} ({self.level} level){at}: {self.old} -> {self.new}"
                f"\n    {self.reason}")


def versions_text(parts: Sequence[Versions]) -> str:
    return ", ".join(str(p) for p in merge(parts))


# --- what a message's versions mean -----------------------------------------------------------

def existing_versions(message: Message) -> Versions:
    """The versions OLD had that peers or data may use: an unstable latest request version
    (``latestVersionUnstable``) is still allowed to change, so it does not count."""
    valid = message.valid_versions
    if message.latest_version_unstable and not valid.empty:
        return Versions(valid.lowest, valid.highest - 1) if valid.highest > valid.lowest else NONE
    return valid


def holders(message: Message, versions: str) -> str:
    """Who holds bytes of ``message`` at ``versions`` today, for the sentences in findings."""
    kind = {"request": "requests from clients already deployed",
            "response": "responses from brokers already deployed",
            "header": "frames from peers already deployed"}.get(message.type, "records already written")
    return f"v{versions} {kind}"


# --- field properties compared across generations -------------------------------------------------

def type_shape(ftype: FieldType) -> str:
    """The type as the wire sees it: struct names are not encoded, so any struct matches any struct
    (their fields are compared one by one instead)."""
    if ftype.is_array:
        return "[]" + type_shape(ftype.element)  # type: ignore[arg-type]
    return "struct" if ftype.is_struct else ftype.name


def default_key(f: Field) -> object:
    """The default as a value, so that "0x10" equals "16" and "" equals "0" for integers."""
    if f.default == "null":
        return ("null",)
    if f.type.name == "records":
        return ("raw", f.default)
    try:
        return ("value", parse_default(f.type, f.default, False))
    except ValueError:
        return ("raw", f.default)


def default_text(f: Field) -> str:
    return f.default if f.default else "(none)"


def untagged_versions(f: Field) -> list[Versions]:
    return minus(f.versions, f.tagged_versions)


def field_summary(f: Field) -> str:
    where = f"tag {f.tag} in taggedVersions {f.tagged_versions}" if f.is_tagged else f"versions {f.versions}"
    return f"{f.type} ({where})"


# --- the comparison -----------------------------------------------------------------------------

class _Comparison:
    """Collects the findings for one (OLD, NEW) pair of the same message."""

    def __init__(self, old: Message, new: Message) -> None:
        self.old, self.new = old, new
        self.findings: list[Finding] = []
        self.parts: list[list[Versions]] = []  # the versions of each finding, as ranges

    def add(self, path: str, rule: str, versions: Sequence[Versions] | str, old: object, new: object,
            reason: str, level: str = "wire") -> None:
        text = versions if isinstance(versions, str) else versions_text(versions)
        self.findings.append(Finding(file=self.new.source, old_file=self.old.source, message=self.new.name,
                                     path=path, rule=rule, versions=text, old=str(old), new=str(new),
                                     reason=reason, level=level))
        self.parts.append([] if isinstance(versions, str) else merge(versions))

    def holders(self, versions: Sequence[Versions]) -> str:
        return holders(self.old, versions_text(versions))

    # -- message level --
    def run(self) -> list[Finding]:
        old, new = self.old, self.new
        existing = existing_versions(old)
        if old.api_key != new.api_key:
            self.add("", "api-key-changed", [existing], old.api_key, new.api_key,
                     f"the apiKey identifies the message on the wire (request headers, metadata record "
                     f"frames): {self.holders([existing])} say {old.api_key}, which would no longer mean "
                     f"{new.name}")
        if old.type != new.type:
            self.add("", "message-type-changed", [existing], old.type, new.type,
                     f"the type decides how the message is framed and which header or log it lives in; "
                     f"existing {old.type} bytes would not be read as a {new.type}")
        removed = minus_all(minus(existing, new.valid_versions), old.deprecated_versions)
        if removed:
            self.add("", "versions-removed", removed, f"validVersions {old.valid_versions}",
                     f"validVersions {new.valid_versions}",
                     f"{self.holders(removed)} would be refused as an unsupported version; mark them in "
                     f"deprecatedVersions first, and remove them in a later release")
        if old.name != new.name:
            self.add("", "message-renamed", [existing], old.name, new.name,
                     f"the generated class {old.name} is now {new.name}: Python code importing it breaks "
                     f"(the name is not encoded; apiKey and type say which message it is)", level="api")
        scope = existing.intersect(new.valid_versions)
        self.check_flexible(scope)
        self.compare_structs(old.struct, new.struct, scope, "")
        return self.judged_on_the_bytes(scope)

    def judged_on_the_bytes(self, scope: Versions) -> list[Finding]:
        """Hold every wire finding about fields to the wire layout: at versions where the layout
        of OLD and NEW is the same, the change shows only in names, so it moves to the json level;
        where the layout differs but no rule named why, say so (every byte change is reported)."""
        same, differ = layout_agreement(self.old, self.new, scope)
        judged: list[Finding] = []
        covered: list[Versions] = []
        for finding, parts in zip(self.findings, self.parts, strict=True):
            if finding.level != "wire" or finding.rule in MESSAGE_RULES | MOVED_FIELD_RULES or not parts:
                judged.append(finding)
                continue
            changed = merge(p for d in differ for p in intersect_all(parts, d))
            kept = merge(p for s in same for p in intersect_all(parts, s))
            if changed:
                covered.extend(changed)
                judged.append(replace(finding, versions=versions_text(changed)) if kept else finding)
            if kept:
                judged.append(replace(finding, versions=versions_text(kept), level="json",
                                      reason=self.same_bytes_reason(finding, kept)))
        unexplained = differ
        covered.extend(p for f, parts in zip(self.findings, self.parts, strict=True)
                       if f.rule in MOVED_FIELD_RULES for p in parts)
        for part in covered:
            unexplained = minus_all(unexplained, part)
        for piece in merge(unexplained):
            where, before, after = first_layout_difference(self.old, self.new, piece.lowest)
            judged.append(Finding(file=self.new.source, old_file=self.old.source, message=self.new.name,
                                  path=where, rule="wire-layout-changed", versions=str(piece),
                                  old=before, new=after,
                                  reason=f"{self.holders([piece])} are laid out as {before} at this point; "
                                         f"a reader of the new definition expects {after}"))
        return judged

    def same_bytes_reason(self, finding: Finding, kept: list[Versions]) -> str:
        same = (f"v{versions_text(kept)} bytes are the same before and after (field and struct names are "
                f"not encoded)")
        name = finding.path.rsplit(".", 1)[-1].removesuffix("[]")
        key = name[:1].lower() + name[1:]
        if finding.rule == "field-removed":
            return (f"{same}, but Kafka's JSON form no longer has \"{key}\" where it was: JSON written before "
                    f"(quorum-state files, tools' output) would not read back")
        if finding.rule == "untagged-field-added":
            return f"{same}, but Kafka's JSON form now expects \"{key}\", which JSON written before lacks"
        if finding.rule == "field-type-changed":  # string -> bytes where both are compact
            return (f"v{versions_text(kept)} bytes are the same before and after (a compact string and "
                    f"compact bytes are spelled alike: a varint length, then the bytes), but {finding.reason}")
        return f"{same}, but Kafka's JSON form changes: {finding.reason}"

    def check_flexible(self, scope: Versions) -> None:
        old_flex, new_flex = self.old.flexible_versions, self.new.flexible_versions
        made_flexible = intersect_all(minus(new_flex, old_flex), scope)
        made_rigid = intersect_all(minus(old_flex, new_flex), scope)
        if not (made_flexible or made_rigid):
            return
        reasons = []
        if made_flexible:
            reasons.append(f"{self.holders(made_flexible)} use the non-flexible encoding (int16/int32 "
                           f"lengths, no tagged section) and would no longer parse")
        if made_rigid:
            reasons.append(f"{self.holders(made_rigid)} use the flexible encoding (varint lengths, a tagged "
                           f"section after every struct) and would no longer parse")
        self.add("", "flexible-versions-changed", made_flexible + made_rigid, f"flexibleVersions {old_flex}",
                 f"flexibleVersions {new_flex}",
                 "; ".join(reasons) + "; only a new version may become flexible")

    # -- struct level --
    def compare_structs(self, old: Struct, new: Struct, scope: Versions, prefix: str) -> None:
        """Compare two generations of one struct at the versions ``scope`` where both are present."""
        if scope.empty:
            return
        renamed = renamed_fields(old, new, scope)  # old name -> new name
        for old_name, new_name in renamed.items():
            before, after = old.field(old_name), new.field(new_name)
            both = before.versions.intersect(after.versions).intersect(scope)
            if before.json_name != after.json_name:
                level, what = "json", (f"Kafka's JSON form calls it \"{after.json_name}\" instead of "
                                       f"\"{before.json_name}\": JSON written before (quorum-state files, tools' "
                                       f"output) would not read back")
            elif before.attr_name != after.attr_name:
                level, what = "api", f"the generated attribute {before.attr_name} is now {after.attr_name}"
            else:
                continue
            self.add(prefix + old_name, "field-renamed", [both], old_name, new_name,
                     f"{self.holders([both])} are the same bytes (names are not encoded), but {what}", level=level)
        new_by_name = {f.name: f for f in new.fields}
        old_by_name = {f.name: f for f in old.fields}
        for of_name, nf_name in renamed.items():
            new_by_name[of_name] = new.field(nf_name)
            old_by_name[nf_name] = old.field(of_name)
        removed_at: dict[str, list[Versions]] = {}
        added_at: dict[str, list[Versions]] = {}
        for of in old.fields:
            nf = new_by_name.get(of.name)
            gone = minus(of.versions.intersect(scope), nf.versions if nf else NONE)
            if gone:
                removed_at[of.name] = gone
        for nf in new.fields:
            of = old_by_name.get(nf.name)
            fresh = minus_all(intersect_all(untagged_versions(nf), scope), of.versions if of else NONE)
            if fresh:
                added_at[nf.name] = fresh

        for of in old.fields:
            nf = new_by_name.get(of.name)
            if of.name in removed_at:
                self.report_removed(of, nf, removed_at[of.name], added_at, prefix)
            if nf is not None:
                self.compare_fields(of, nf, scope, prefix)
        for nf in new.fields:
            if nf.name in added_at:
                self.report_added(nf, old_by_name.get(nf.name), added_at[nf.name], removed_at, prefix)
        self.check_tag_reuse(old, new, scope, prefix, renamed)
        self.check_order(old, new, scope, prefix, renamed)

    def report_removed(self, of: Field, nf: Field | None, gone: list[Versions],
                       added_at: dict[str, list[Versions]], prefix: str) -> None:
        if all(of.tagged_versions.contains(g) for g in gone):
            why = (f"{self.holders(gone)} may carry {of.name} under tag {of.tag}; readers would drop it as an "
                   f"unknown tag and the value is lost")
        else:
            why = (f"{self.holders(gone)} carry {of.name} inline; a reader without it takes its bytes for "
                   f"the fields after it")
        self.add(prefix + of.name, "field-removed", gone, field_summary(of),
                 field_summary(nf) if nf else ABSENT, why + self.replacement_hint(gone, added_at, "added"))

    def report_added(self, nf: Field, of: Field | None, fresh: list[Versions],
                     removed_at: dict[str, list[Versions]], prefix: str) -> None:
        why = (f"{self.holders(fresh)} lack {nf.name}; a reader expecting it takes the next bytes for it "
               f"(add it as a tagged field, or only in a new version)")
        self.add(prefix + nf.name, "untagged-field-added", fresh, field_summary(of) if of else ABSENT,
                 field_summary(nf), why + self.replacement_hint(fresh, removed_at, "removed"))

    @staticmethod
    def replacement_hint(where: list[Versions], others: dict[str, list[Versions]], what: str) -> str:
        """Name the fields changed the other way at the same versions: together they read as a rename
        or replacement, which matching by name reports as a removal plus an addition."""
        names = [name for name, parts in others.items() if any(intersect_all(parts, w) for w in where)]
        if not names:
            return ""
        return f" ({', '.join(names)} {'was' if len(names) == 1 else 'were'} {what} at the same versions: " \
               f"a rename or replacement still changes the bytes)"

    def compare_fields(self, of: Field, nf: Field, scope: Versions, prefix: str) -> None:
        path = prefix + of.name
        both = of.versions.intersect(nf.versions).intersect(scope)
        if type_shape(of.type) != type_shape(nf.type):
            if {of.type.name, nf.type.name} == {"string", "bytes"}:
                self.string_bytes_changed(of, nf, both, path)
            elif not both.empty:
                self.add(path, "field-type-changed", [both], of.type, nf.type,
                         f"{self.holders([both])} encode {of.name} as {of.type}; reading those bytes as "
                         f"{nf.type} decodes it and everything after it wrongly")
            return  # the other properties are not comparable across types
        if default_key(of) != default_key(nf):
            self.check_default(of, nf, scope, path)
        if both.empty:
            return
        if of.struct is not None and nf.struct is not None and of.struct.name != nf.struct.name:
            self.add(path, "struct-renamed", [both], of.struct.name, nf.struct.name,
                     f"{self.holders([both])} are the same bytes (struct names are not encoded), but the "
                     f"generated class {of.struct.name} is now {nf.struct.name}", level="api")
        self.check_nullable(of, nf, both, path)
        self.check_tagging(of, nf, both, path)
        self.check_field_flexible(of, nf, both, path)
        if of.struct is not None and nf.struct is not None:
            self.compare_structs(of.struct, nf.struct, both, path + ("[]." if of.type.is_array else "."))

    def string_bytes_changed(self, of: Field, nf: Field, both: Versions, path: str) -> None:
        """string <-> bytes, judged by the bytes: compact strings and compact bytes are spelled alike
        (a varint length, then the bytes); otherwise a string's length is an int16, bytes' an int32."""
        compact: list[Versions] = []
        rigid: list[Versions] = []
        for version in range(both.lowest, both.highest + 1) if not both.empty else ():
            alike = self.old.string_flexible_at(of, version) and self.new.string_flexible_at(nf, version)
            (compact if alike else rigid).append(Versions(version, version))
        rigid, compact = merge(rigid), merge(compact)
        if rigid:
            width = {"string": "an int16", "bytes": "an int32"}
            self.add(path, "field-type-changed", rigid, of.type, nf.type,
                     f"{self.holders(rigid)} give {of.name} {width[of.type.name]} length ({of.type}); a reader "
                     f"of {nf.type} expects {width[nf.type.name]} length and decodes it and everything after "
                     f"it wrongly")
        if compact and of.type.name == "bytes":
            self.add(path, "field-type-changed", compact, of.type, nf.type,
                     f"{self.holders(compact)} spell {of.name} as compact bytes, which a string reader takes "
                     f"as UTF-8 text: a value that is not UTF-8 does not read back as written")
        elif compact:  # string -> bytes: the layout is the same, so judged_on_the_bytes makes this a note
            self.add(path, "field-type-changed", compact, of.type, nf.type,
                     f"Kafka's JSON form writes {of.name} as text before and as base64 after, and the "
                     f"generated class holds a str before and bytes after")

    def check_default(self, of: Field, nf: Field, scope: Versions, path: str) -> None:
        """A default reaches the bytes only through a tagged field (left off the wire at its default);
        where a version lacks the field, readers fill in the default (what the JSON form shows); else
        only the generated constructor sees it."""
        old_text, new_text = default_text(of), default_text(nf)
        tagged = intersect_all([of.tagged_versions.intersect(nf.tagged_versions)], scope)
        lacking = merge(minus(scope, of.versions) + minus(scope, nf.versions))
        if tagged:
            self.add(path, "default-changed", tagged, old_text, new_text,
                     f"a tagged field at its default is left off the wire: {self.holders(tagged)} that left "
                     f"{of.name} out meant {old_text}, and a reader would now take {new_text}")
        if lacking:
            self.add(path, "default-changed", lacking, old_text, new_text,
                     f"readers fill {of.name} with its default where a version lacks it: "
                     f"{self.holders(lacking)} would read back {new_text} where the writer meant {old_text}",
                     level="json")
        if not tagged and not lacking:
            self.add(path, "default-changed", [scope], old_text, new_text,
                     f"every existing version carries {of.name}, so no byte changes, but the generated "
                     f"constructor now fills in {new_text} instead of {old_text}", level="api")

    def check_nullable(self, of: Field, nf: Field, both: Versions, path: str) -> None:
        shrunk = intersect_all(minus(of.nullable_versions, nf.nullable_versions), both)
        grown = intersect_all(minus(nf.nullable_versions, of.nullable_versions), both)
        struct_marker = of.type.is_struct
        if shrunk:
            why = f"{self.holders(shrunk)} may hold null in {of.name}, which a reader would now reject"
            if struct_marker:
                why += ", and the presence byte before a nullable struct would no longer be read"
            self.add(path, "nullable-versions-shrunk", shrunk, f"nullableVersions {of.nullable_versions}",
                     f"nullableVersions {nf.nullable_versions}", why)
        if grown:
            if struct_marker:
                why = (f"a nullable struct is preceded by a presence byte: {self.holders(grown)} have none, "
                       f"so a reader would take the struct's first byte for it")
            else:
                why = (f"readers deployed for v{versions_text(grown)} reject null in {of.name}, and a writer "
                       f"may now send one; make it nullable only in a new version")
            self.add(path, "nullable-versions-grown", grown, f"nullableVersions {of.nullable_versions}",
                     f"nullableVersions {nf.nullable_versions}", why)

    def check_tagging(self, of: Field, nf: Field, both: Versions, path: str) -> None:
        moved = intersect_all(minus(of.tagged_versions, nf.tagged_versions)
                              + minus(nf.tagged_versions, of.tagged_versions), both)
        if moved:
            self.add(path, "tagged-versions-changed", moved, f"taggedVersions {of.tagged_versions}",
                     f"taggedVersions {nf.tagged_versions}",
                     f"a tagged field travels in the tagged section and an untagged one inline: "
                     f"{self.holders(moved)} put {of.name} where readers would no longer look for it")
        still_tagged = of.tagged_versions.intersect(nf.tagged_versions).intersect(both)
        if not still_tagged.empty and of.tag != nf.tag:
            self.add(path, "tag-renumbered", [still_tagged], f"tag {of.tag}", f"tag {nf.tag}",
                     f"{self.holders([still_tagged])} carry {of.name} under tag {of.tag}; readers would "
                     f"look for tag {nf.tag} and treat tag {of.tag} as unknown")

    def check_field_flexible(self, of: Field, nf: Field, both: Versions, path: str) -> None:
        """A per-field flexibleVersions (string/bytes only) decides the length encoding of that field."""
        if of.flexible_versions is None and nf.flexible_versions is None:
            return  # the field follows the message, whose change is reported once for the message
        old_flex = of.flexible_versions if of.flexible_versions is not None else self.old.flexible_versions
        new_flex = nf.flexible_versions if nf.flexible_versions is not None else self.new.flexible_versions
        changed = intersect_all(minus(old_flex, new_flex) + minus(new_flex, old_flex), both)
        if changed:
            self.add(path, "flexible-versions-changed", changed, f"flexibleVersions {old_flex}",
                     f"flexibleVersions {new_flex}",
                     f"{self.holders(changed)} encode the length of {of.name} one way (int16/int32 or varint) "
                     f"and readers would expect the other")

    def check_tag_reuse(self, old: Struct, new: Struct, scope: Versions, prefix: str,
                        renamed: dict[str, str]) -> None:
        new_by_tag = {f.tag: f for f in new.fields if f.is_tagged}
        for of in old.fields:
            nf = new_by_tag.get(of.tag) if of.is_tagged else None
            if nf is None or nf.name == renamed.get(of.name, of.name):
                continue
            clash = of.tagged_versions.intersect(nf.tagged_versions).intersect(scope)
            if not clash.empty:
                self.add(prefix + nf.name, "tag-reused", [clash], f"tag {of.tag} = {of.name} ({of.type})",
                         f"tag {nf.tag} = {nf.name} ({nf.type})",
                         f"{self.holders([clash])} use tag {of.tag} for {of.name}; a reader would decode "
                         f"those bytes as {nf.name}")

    def check_order(self, old: Struct, new: Struct, scope: Versions, prefix: str,
                    renamed: dict[str, str]) -> None:
        """Non-tagged fields go on the wire in declaration order; matching by name must not hide a swap."""
        bounds = [r for f in old.fields + new.fields for r in (f.versions, f.tagged_versions)]
        changes: dict[tuple[str, str], list[Versions]] = {}
        for piece in segments(scope, bounds):
            v = piece.lowest
            old_names = [renamed.get(f.name, f.name) for f in old.untagged_fields_at(v)]
            new_names = [f.name for f in new.untagged_fields_at(v)]
            common = set(old_names) & set(new_names)
            before = [n for n in old_names if n in common]
            after = [n for n in new_names if n in common]
            if before != after:
                changes.setdefault((", ".join(before), ", ".join(after)), []).append(piece)
        for (before, after), pieces in changes.items():
            self.add(prefix.rstrip(".") or "", "field-order-changed", pieces, before, after,
                     f"non-tagged fields are encoded in declaration order: {self.holders(pieces)} have "
                     f"them as {before}")


def renamed_fields(old: Struct, new: Struct, scope: Versions) -> dict[str, str]:
    """Fields of ``old`` that ``new`` has under another name: same type (as the wire sees it), same
    versions, and the same place (the same tag, or the same position among the untagged fields at
    each existing version). Only a struct that lost as many names as it gained is read as renamed,
    and only pairs that match one to one count, so a guess never hides a change: when two fields
    become one (KIP-778's MinFeatureLevel and MaxFeatureLevel), each is reported as it is."""
    old_names = {f.name for f in old.fields}
    new_names = {f.name for f in new.fields}
    gone = [f for f in old.fields if f.name not in new_names]
    fresh = [f for f in new.fields if f.name not in old_names]
    if not gone or len(gone) != len(fresh):
        return {}

    def place(struct: Struct, f: Field) -> tuple[object, ...]:
        if f.is_tagged:
            return ("tag", f.tag, str(f.tagged_versions))
        live = f.versions.intersect(scope)
        if live.empty:
            return ("absent",)
        bounds = [r for g in struct.fields for r in (g.versions, g.tagged_versions)]
        return tuple(struct.untagged_fields_at(piece.lowest).index(f) if f in struct.untagged_fields_at(piece.lowest)
                     else -1 for piece in segments(live, bounds))

    def key(struct: Struct, f: Field) -> tuple[object, ...]:
        return (type_shape(f.type), str(f.versions.intersect(scope)), place(struct, f))

    old_keys: dict[tuple[object, ...], list[Field]] = {}
    for f in gone:
        old_keys.setdefault(key(old, f), []).append(f)
    new_keys: dict[tuple[object, ...], list[Field]] = {}
    for f in fresh:
        new_keys.setdefault(key(new, f), []).append(f)
    return {olds[0].name: new_keys[k][0].name for k, olds in old_keys.items()
            if len(olds) == 1 and len(new_keys.get(k, [])) == 1 and k[2] != ("absent",)}


# --- wire layout -----------------------------------------------------------------------------------

Token = tuple[str, tuple[object, ...]]  # (field path, what the bytes there are)


def wire_layout(message: Message, version: int) -> list[Token]:
    """What the bytes of ``message`` at ``version`` are, in order, with the field each comes from.

    Names never reach the wire, so only the kinds are compared across generations. A non-nullable
    struct is its fields in a row (inlining it changes nothing) until the version is flexible,
    where every struct ends with its own tagged section; a tagged field's default is part of the
    layout, since a field at its default is left out."""
    return _struct_layout(message, message.struct, version, version in message.flexible_versions, "")


def _struct_layout(message: Message, struct: Struct, version: int, flexible: bool, prefix: str) -> list[Token]:
    tokens: list[Token] = []
    for f in struct.untagged_fields_at(version):
        tokens.extend(_field_layout(message, f, version, flexible, prefix + f.name))
    if flexible:
        tagged = tuple((f.tag, tuple(kind for _, kind in _field_layout(message, f, version, flexible, "")),
                        default_key(f)) for f in struct.tagged_fields_at(version))
        tokens.append((prefix + "(tagged fields)", ("tagged fields", tagged)))
    return tokens


def _field_layout(message: Message, f: Field, version: int, flexible: bool, path: str) -> list[Token]:
    nullable = f.nullable_in(version)
    if f.type.is_struct and f.struct is not None:
        presence: list[Token] = [(path, ("presence byte",))] if nullable else []
        return presence + _struct_layout(message, f.struct, version, flexible, path + ".")
    if f.type.is_array:
        element = f.type.element
        if element is not None and element.is_struct and f.struct is not None:
            layout = _struct_layout(message, f.struct, version, flexible, "")
            inner: tuple[object, ...] = tuple(kind for _, kind in layout)
        else:
            inner = (str(element),)
        return [(path, ("compact array" if flexible else "array", "nullable" if nullable else "", inner))]
    if f.type.name in ("string", "bytes", "records"):
        compact = message.string_flexible_at(f, version) if f.type.name != "records" else flexible
        name = "bytes" if f.type.name == "records" else f.type.name  # records travel as bytes do
        return [(path, (("compact " if compact else "") + name, "nullable" if nullable else ""))]
    return [(path, (f.type.name,))]


def _layout_bounds(message: Message) -> list[Versions]:
    bounds = [message.flexible_versions]
    for struct in [message.struct, *message.all_structs()]:
        bounds.append(struct.versions)
        for f in struct.fields:
            bounds.extend((f.versions, f.nullable_versions, f.tagged_versions))
            if f.flexible_versions is not None:
                bounds.append(f.flexible_versions)
    return bounds


def layout_agreement(old: Message, new: Message, scope: Versions) -> tuple[list[Versions], list[Versions]]:
    """(versions of ``scope`` where OLD and NEW lay out the same bytes, versions where they do not)."""
    same: list[Versions] = []
    differ: list[Versions] = []
    for piece in segments(scope, _layout_bounds(old) + _layout_bounds(new)):
        kinds = [tuple(kind for _, kind in wire_layout(m, piece.lowest)) for m in (old, new)]
        (same if _reads_the_same(kinds[0], kinds[1]) else differ).append(piece)
    return merge(same), merge(differ)


def _reads_the_same(old: object, new: object) -> bool:
    """Whether bytes laid out as ``old`` read back the same under ``new``: equal, except that a
    tagged section may gain tags (old bytes lack them; readers fill in the default)."""
    if isinstance(old, tuple) and isinstance(new, tuple):
        if old[:1] == new[:1] == ("tagged fields",) and len(old) == len(new) == 2:
            new_tags = {entry[0]: entry for entry in cast(tuple, new[1])}
            return all(entry[0] in new_tags and _reads_the_same(entry, new_tags[entry[0]])
                       for entry in cast(tuple, old[1]))
        return len(old) == len(new) and all(_reads_the_same(a, b) for a, b in zip(old, new, strict=True))
    # any string already written reads as bytes (not the other way: bytes need not be UTF-8)
    return old == new or (old, new) == ("compact string", "compact bytes")


def _describe(kind: tuple[Any, ...]) -> str:
    if kind and kind[0] == "tagged fields":
        return "tagged fields " + (", ".join(f"tag {t[0]}" for t in kind[1]) or "(none)")
    return " ".join(str(k) for k in kind if k != "" and not isinstance(k, tuple)) or "?"


def first_layout_difference(old: Message, new: Message, version: int) -> tuple[str, str, str]:
    """(field path, OLD's bytes, NEW's bytes) at the first place the layouts part at ``version``."""
    before, after = wire_layout(old, version), wire_layout(new, version)
    for (path_old, kind_old), (path_new, kind_new) in zip(before, after, strict=False):
        if not _reads_the_same(kind_old, kind_new):
            return path_new or path_old, f"{_describe(kind_old)} ({path_old})", f"{_describe(kind_new)} ({path_new})"
    if len(before) > len(after):
        path, kind = before[len(after)]
        return path, f"{_describe(kind)} ({path})", "(end)"
    path, kind = after[len(before)] if len(after) > len(before) else ("", ())
    return path, "(end)", f"{_describe(kind)} ({path})"


def compare_messages(old: Message, new: Message) -> list[Finding]:
    """Every incompatible change from ``old`` to ``new``, two generations of one message, at every
    level (see :attr:`Finding.level`; :func:`split_by_level` picks the ones a check counts)."""
    return _Comparison(old, new).run()


def split_by_level(findings: Iterable[Finding], level: str) -> tuple[list[Finding], list[Finding]]:
    """(the findings incompatible at ``level``, the rest as notes)."""
    counted: list[Finding] = []
    notes: list[Finding] = []
    for f in findings:
        (counted if f.applies_at(level) else notes).append(f)
    return counted, notes


def compare_sets(old: Iterable[Message], new: Iterable[Message]) -> list[Finding]:
    """Match messages by name: a message missing from ``new`` is a finding, a new one is fine."""
    new_by_name = {m.name: m for m in new}
    findings: list[Finding] = []
    for om in sorted(old, key=lambda m: m.name):
        nm = new_by_name.get(om.name)
        if nm is None:
            existing = existing_versions(om)
            if not existing.empty:
                findings.append(Finding(file=om.source, old_file=om.source, message=om.name, path="",
                                        rule="message-removed", versions=str(existing),
                                        old=f"{om.type} {om.name}", new=ABSENT,
                                        reason=f"{holders(om, str(existing))} could no longer be read"))
            continue
        findings.extend(compare_messages(om, nm))
    return findings
