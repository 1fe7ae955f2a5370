"""The emitter's decisions, one at a time: which versions share a layout, which step each field
becomes and which fast path it takes, the code a step writes, the names and version ranges the
module declares. The end-to-end tests (golden vectors, kio, captured frames) prove the bytes;
these pin down why the generated code looks the way it does, on small hand-made definitions.
"""
from __future__ import annotations

import dataclasses
import inspect

import pytest

from kwire.generator.definitions.loader import load_definitions, load_text
from kwire.generator.definitions.versions import MAX_VERSION, NONE, Versions
from kwire.generator.emit import plan as emit_plan
from kwire.generator.emit import render_message
from kwire.generator.emit.compiled_ops import CompiledStructArray, IntegerArray, IntegerRun
from kwire.generator.emit.constants import ModuleConstants
from kwire.generator.emit.flavours import COMPILED, HOT_READERS, PURE
from kwire.generator.emit.ops import (
    BytesArray,
    BytesOp,
    FixedArray,
    FixedRun,
    RecordsOp,
    StringOp,
    StructArray,
    StructOp,
    UuidArray,
)
from kwire.generator.emit.plan import MessagePlan, on_hot_path
from kwire.generator.emit.views import instance_name, tuple_source, versions_note
from kwire.wire import primitives, struct_base
from tests.paths import MESSAGE_DEFS

SAMPLE = """{
  "apiKey": 90, "type": "response", "name": "SampleResponse",
  "validVersions": "0-5", "flexibleVersions": "3+",
  "fields": [
    {"name": "ThrottleTimeMs", "type": "int32", "versions": "0+", "about": "Milliseconds held back."},
    {"name": "ErrorCode", "type": "int16", "versions": "0+"},
    {"name": "Name", "type": "string", "versions": "0+", "nullableVersions": "4+"},
    {"name": "Blob", "type": "bytes", "versions": "0+"},
    {"name": "Gone", "type": "int64", "versions": "0-1", "ignorable": true},
    {"name": "Epoch", "type": "int32", "versions": "2+", "default": -1},
    {"name": "Ids", "type": "[]int32", "versions": "0+"},
    {"name": "Weights", "type": "[]float64", "versions": "0+"},
    {"name": "Labels", "type": "[]string", "versions": "0+"},
    {"name": "Dirs", "type": "[]uuid", "versions": "2+"},
    {"name": "TopicId", "type": "uuid", "versions": "2+"},
    {"name": "Records", "type": "records", "versions": "0+", "nullableVersions": "0+"},
    {"name": "Points", "type": "[]Point", "versions": "0+", "fields": [
      {"name": "X", "type": "int32", "versions": "0+", "mapKey": true},
      {"name": "Y", "type": "int16", "versions": "0+"}
    ]},
    {"name": "Notes", "type": "[]Note", "versions": "0+", "fields": [
      {"name": "Text", "type": "string", "versions": "0+"}
    ]},
    {"name": "Leader", "type": "Point2", "versions": "0+", "nullableVersions": "0+", "default": "null", "fields": [
      {"name": "Id", "type": "int32", "versions": "0+"}
    ]},
    {"name": "Hint", "type": "Hint", "versions": "3+", "taggedVersions": "3+", "tag": 0,
     "nullableVersions": "3+", "default": "null", "fields": [
      {"name": "Level", "type": "int8", "versions": "0+"}
    ]},
    {"name": "Cursor", "type": "int64", "versions": "5+", "taggedVersions": "5+", "tag": 1, "default": -1}
  ]
}"""


@pytest.fixture(scope="module", autouse=True)
def sample_on_the_hot_path():
    """The sample pins down the fast paths, which only definitions on the hot path take."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(emit_plan, "HOT_APIS", emit_plan.HOT_APIS | {"Sample"})
        yield


@pytest.fixture(scope="module")
def sample():
    return load_text(SAMPLE, "SampleResponse.json")


@pytest.fixture(scope="module")
def plan(sample) -> MessagePlan:
    return emit_plan.plan(sample, PURE)


@pytest.fixture(scope="module")
def compiled_plan(sample) -> MessagePlan:
    return emit_plan.plan(sample, COMPILED)


def layouts(plan: MessagePlan, struct: str) -> tuple:
    return next(sp for sp in plan.structs if sp.struct.name == struct).layouts


def layout_at(plan: MessagePlan, struct: str, version: int):
    return next(sp for sp in plan.structs if sp.struct.name == struct).table[version]


def op_of(layout, attr: str):
    return next(op for op in layout.ops + layout.tagged if attr in [f.attr_name for f in op.fields])


# --- layout grouping ----------------------------------------------------------------------------

def test_versions_share_a_layout_until_a_field_or_the_encoding_changes(plan) -> None:
    # Gone leaves after 1, Epoch/Dirs/TopicId arrive at 2, flexible from 3, Name nullable from 4,
    # the tagged Cursor from 5: every change starts a layout.
    assert [g.versions for g in layouts(plan, "SampleResponse")] == [(0, 1), (2,), (3,), (4,), (5,)]
    assert [g.suffix for g in layouts(plan, "SampleResponse")] == ["v0_1", "v2", "v3", "v4", "v5"]
    assert [g.version_text for g in layouts(plan, "SampleResponse")] == ["0-1", "2", "3", "4", "5"]


def test_a_nested_struct_splits_only_where_its_own_encoding_does(plan) -> None:
    # Point's fields never change; only the flexible encoding (tagged-field count) does.
    assert [g.versions for g in layouts(plan, "Point")] == [(0, 1, 2), (3, 4, 5)]
    assert layout_at(plan, "Point", 4) is layout_at(plan, "Point", 3)
    assert [g.flexible for g in layouts(plan, "Point")] == [False, True]


GAP = """{"apiKey": 91, "type": "request", "name": "GapRequest", "validVersions": "0-2",
  "flexibleVersions": "none", "fields": [
    {"name": "A", "type": "int32", "versions": "0+"},
    {"name": "OnlyOne", "type": "int8", "versions": "1", "ignorable": true}]}"""


def test_versions_that_are_not_neighbours_share_a_layout() -> None:
    # on the hot path (the name of one of its APIs) every layout has functions of its own
    message = load_text(GAP.replace("GapRequest", "ProduceRequest"), "ProduceRequest.json")
    groups = layouts(emit_plan.plan(message, PURE), "ProduceRequest")
    assert [g.versions for g in groups] == [(0, 2), (1,)]
    assert [g.suffix for g in groups] == ["v0_2", "v1"] and groups[0].version_text == "0,2"
    assert [f.name for f in groups[0].absent] == ["OnlyOne"]


def test_off_the_hot_path_one_function_serves_an_encoding_and_tests_the_version() -> None:
    message = load_text(GAP, "GapRequest.json")
    [layout] = layouts(emit_plan.plan(message, PURE), "GapRequest")
    assert layout.versions == (0, 1, 2) and layout.takes_version
    tested = op_of(layout, "only_one")
    assert isinstance(tested, emit_plan.VersionTest)
    assert (tested.test, tested.absent_test, tested.lacking) == ("version == 1", "version != 1", "0,2")
    source = render_message(message)
    assert "def _read_GapRequest_v0_2(buf: bytes, pos: int, version: int)" in source
    namespace: dict = {}
    exec(compile(source, "gap_request.py", "exec"), namespace)
    cls = namespace["GapRequest"]
    assert [cls(a=7, only_one=3).encode(v) for v in range(3)] == [b"\0\0\0\x07", b"\0\0\0\x07\x03", b"\0\0\0\x07"]
    assert cls.decode(b"\0\0\0\x07\x03", 1) == cls(a=7, only_one=3)
    assert cls.decode(b"\0\0\0\x07", 2) == cls(a=7)


def test_the_plan_is_not_changed_after_it_is_made(plan) -> None:
    # every decision is made while planning: views and templates can only read the plan
    layout = layout_at(plan, "SampleResponse", 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        layout.ops = ()  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        op_of(layout, "points").rows = ""  # type: ignore[misc]
    with pytest.raises(TypeError):
        plan.helpers["_extra"] = "1"  # type: ignore[index]
    assert isinstance(layout.ops, tuple) and isinstance(plan.structs[0].layouts, tuple)


def test_consecutive_fixed_width_fields_coalesce_into_one_run(plan) -> None:
    v0, v2 = layout_at(plan, "SampleResponse", 0), layout_at(plan, "SampleResponse", 2)
    first = v0.ops[0]
    assert isinstance(first, FixedRun) and [f.name for f in first.fields] == ["ThrottleTimeMs", "ErrorCode"]
    assert (first.fmt, first.width) == (">ih", 6)
    # Gone (int64) stands between Blob and Ids at v0-1; Epoch takes its place at 2.
    assert [f.name for f in op_of(v0, "gone").fields] == ["Gone"] and op_of(v0, "gone").fmt == ">q"
    assert op_of(v2, "epoch").fmt == ">i" and "gone" in [f.attr_name for f in v2.absent]
    assert v0.fixed_size == 6 + 8 and v2.fixed_size == 6 + 4


def test_tagged_fields_leave_the_runs_and_go_in_tag_order(plan) -> None:
    v5 = layout_at(plan, "SampleResponse", 5)
    assert [op.tag for op in v5.tagged] == [0, 1]
    assert [op.attr for op in v5.tagged] == ["hint", "cursor"]
    assert all(op.tag is None for op in v5.ops)


# --- which step, which fast path ------------------------------------------------------------------

@pytest.mark.parametrize(("version", "attr", "kind", "compact", "nullable", "short_inline"), [
    (0, "name", StringOp, False, False, False),
    (3, "name", StringOp, True, False, True),     # compact strings: the short-string fast path
    (4, "name", StringOp, True, True, True),
    (3, "blob", BytesOp, True, False, None),      # bytes have no inline path (not a StringOp)
    (0, "ids", FixedArray, False, False, False),
    (3, "ids", FixedArray, True, False, True),    # compact arrays: one-byte counts inline
    (3, "labels", BytesArray, True, False, True),
    (3, "dirs", UuidArray, True, False, True),
    (0, "records", RecordsOp, False, True, None),
    (0, "points", StructArray, False, False, False),
    (3, "notes", StructArray, True, False, True),
])
def test_each_field_becomes_its_step(plan, version, attr, kind, compact, nullable, short_inline) -> None:
    op = op_of(layout_at(plan, "SampleResponse", version), attr)
    assert type(op) is kind
    assert (op.compact, op.nullable) == (compact, nullable)
    if short_inline is not None:
        assert op.short_inline is short_inline


def test_arrays_of_fixed_width_structs_read_as_rows(plan) -> None:
    v0, v3 = layout_at(plan, "SampleResponse", 0), layout_at(plan, "SampleResponse", 3)
    assert op_of(v0, "points").rows == "_rows_Point_v0_2" and op_of(v3, "points").rows == "_rows_Point_v3_5"
    assert layout_at(plan, "Point", 0).row_format == ">ih"
    assert layout_at(plan, "Point", 3).row_format == ">ihB"  # and the empty tagged section
    assert (layout_at(plan, "Point", 0).row_width, layout_at(plan, "Point", 3).row_width) == (6, 7)
    assert op_of(v0, "notes").rows == ""  # a string: not fixed-width
    assert plan.helpers["_rows_Point_v3_5"] == 'struct.Struct(">ihB").iter_unpack'


def test_the_null_marker_of_a_struct_depends_on_whether_it_is_tagged(plan) -> None:
    v5 = layout_at(plan, "SampleResponse", 5)
    leader, hint = op_of(v5, "leader"), op_of(v5, "hint")
    assert isinstance(leader, StructOp) and isinstance(hint, StructOp)
    assert (leader.null_marker, leader.null_test) == ("0xFF", ">= 0x80")  # int8 -1
    assert (hint.null_marker, hint.null_test) == ("0", "== 0")  # a tagged struct: Kafka writes 0
    assert hint.read("response", PURE)[0] == "if buf[pos] == 0:  # the null marker"
    assert leader.write("response", "out")[1] == "    out.append(0xFF)  # the null marker"


def test_only_layouts_with_inline_checks_keep_the_buffer_size(plan) -> None:
    assert not layout_at(plan, "Hint", 3).reads_buffer_size
    assert not layout_at(plan, "Note", 0).reads_buffer_size  # classic string: a plain call
    assert layout_at(plan, "Note", 3).reads_buffer_size      # compact string: inline length check
    assert layout_at(plan, "SampleResponse", 0).reads_buffer_size  # rows of Point


def test_the_hot_path_is_the_benchmarked_apis_headers_and_metadata_records() -> None:
    messages = {m.name: m for m in load_definitions([MESSAGE_DEFS])}
    hot = ["FetchRequest", "FetchResponse", "ProduceRequest", "MetadataResponse", "OffsetCommitRequest",
           "OffsetFetchResponse", "ApiVersionsResponse", "RequestHeader", "ResponseHeader", "PartitionRecord",
           "RegisterBrokerRecord"]
    assert [name for name in hot if not on_hot_path(messages[name])] == []
    cold = ["DescribeGroupsResponse", "LeaderAndIsrRequest", "FetchSnapshotResponse", "OffsetCommitValue"]
    assert [name for name in cold if on_hot_path(messages[name])] == []


def test_elements_are_read_inline_only_on_the_hot_path_in_flexible_versions(plan) -> None:
    assert op_of(layout_at(plan, "SampleResponse", 3), "notes").inline
    assert not op_of(layout_at(plan, "SampleResponse", 0), "notes").inline  # classic: old clients
    quiet = emit_plan.plan(load_text(SAMPLE.replace("SampleResponse", "QuietResponse"), "QuietResponse.json"), PURE)
    notes, name = (op_of(layout_at(quiet, "QuietResponse", 3), attr) for attr in ("notes", "name"))
    assert not notes.inline and not name.short_inline and not notes.short_inline


def test_off_the_hot_path_parents_call_the_one_shared_element_reader(sample) -> None:
    quiet = load_text(SAMPLE.replace("SampleResponse", "QuietResponse"), "QuietResponse.json")
    source = render_message(quiet)
    assert source.count("def _read_Note_v3_5(") == 1
    # one call to the runtime's array reader, with the element's reader
    assert "response.notes, pos = _w.read_struct_array(buf, pos, True, _read_Note_v3_5, version)" in source
    assert "text_n = buf[pos]" not in source  # Note's string read stays in Note's reader, a runtime call
    namespace: dict = {}
    exec(compile(source, "quiet_response.py", "exec"), namespace)
    cls, note = namespace["QuietResponse"], namespace["Note"]
    obj = cls(name="k", notes=[note(text="a"), note(text="b" * 200)], labels=["x"] * 40)
    for version in range(6):
        assert cls.decode(obj.encode(version), version) == obj
    # the same bytes as the sample's, which takes every fast path
    twin: dict = {}
    exec(compile(render_message(sample), "sample_response.py", "exec"), twin)
    same = twin["SampleResponse"](name="k", notes=[twin["Note"](text="a"), twin["Note"](text="b" * 200)],
                                  labels=["x"] * 40)
    assert [same.encode(v) for v in range(6)] == [obj.encode(v) for v in range(6)]


def test_an_array_writes_its_element_loop_once(plan) -> None:
    for attr in ("notes", "labels", "dirs"):
        write = op_of(layout_at(plan, "SampleResponse", 3), attr).write("response", "out")
        assert sum(line.lstrip().startswith(f"for {attr}_item in ") for line in write) == 1, write
        assert any("out.append(len(" in line for line in write)  # the one-byte count of a short array


# --- the code a step writes ------------------------------------------------------------------------

def test_a_compact_string_reads_short_values_inline(plan) -> None:
    op = op_of(layout_at(plan, "SampleResponse", 3), "name")
    assert op.read("response", PURE) == [
        "name_n = buf[pos]  # the length + 1",
        "if name_n == 1:  # the empty string",
        '    response.name = ""',
        "    pos += 1",
        "else:",
        "    name_end = pos + name_n",
        "    if 0 < name_n < 0x80 and name_end <= size:  # the usual case: a short string",
        "        response.name = buf[pos + 1:name_end].decode()",
        "        pos = name_end",
        "    else:",
        "        response.name, pos = _w.read_compact_string_nn(buf, pos)",
    ]
    nullable = op_of(layout_at(plan, "SampleResponse", 4), "name")
    read = nullable.read("response", PURE)
    assert read[4:7] == ["elif name_n == 0:  # null", "    response.name = None", "    pos += 1"]
    assert read[-1] == "        response.name, pos = _w.read_compact_string(buf, pos)"
    assert nullable.write("response", "out") == ["_w.write_compact_string(out, response.name)"]  # None allowed
    assert op.write("response", "out")[:2] == [
        "if response.name is None:",
        '    raise EncodeError("field name is null, which SampleResponse version 3 does not allow '
        '(nullable in versions 4+)")']


def test_classic_and_compact_encodings_call_their_runtime_functions(plan) -> None:
    classic, compact = layout_at(plan, "SampleResponse", 0), layout_at(plan, "SampleResponse", 3)
    assert op_of(classic, "name").runtime_functions == ("read_string_nn", "write_string")
    assert op_of(compact, "blob").runtime_functions == ("read_compact_bytes_nn", "write_compact_bytes")
    assert op_of(compact, "labels").write_elements("out")[-1] == "    _w.write_compact_string(out, labels_item)"
    assert op_of(classic, "records").read("response", PURE)[0] == \
        "records_n, pos = _w.read_length(buf, pos, False)"


def test_every_runtime_function_a_step_names_exists() -> None:
    named = set()
    for message in load_definitions([MESSAGE_DEFS]):
        for flavour in (PURE, COMPILED):
            for sp in emit_plan.plan(message, flavour).structs:
                for layout in sp.layouts:
                    for op in layout.ops + layout.tagged:
                        named.update(op.runtime_functions)
    assert {"read_compact_string_nn", "write_compact_bytes", "read_uuid", "write_records", "UNPACK_ARRAY"} <= named
    missing = sorted(name for name in named if not hasattr(primitives, name))
    assert missing == []
    # the hot readers also exist in the module compiled builds copy in as _base
    assert all(inspect.isfunction(getattr(struct_base, name)) for name in HOT_READERS)


def test_the_compiled_flavour_reads_integers_without_struct(plan, compiled_plan) -> None:
    # compiled: librt.strings.read_i*_be, which mypyc compiles inline (issue 38 §1)
    run = layout_at(plan, "SampleResponse", 0).ops[0]
    compiled = layout_at(compiled_plan, "SampleResponse", 0).ops[0]
    assert type(run) is FixedRun and isinstance(compiled, IntegerRun)  # the plan picks the step per flavour
    assert run.read("response", PURE) == [
        "response.throttle_time_ms, response.error_code = _unpack_SampleResponse_throttle_time_ms_error_code(buf, pos)",
        "pos += 6"]
    assert compiled.read("response", COMPILED) == [
        "response.throttle_time_ms = read_i32_be(buf, pos)",
        "response.error_code = read_i16_be(buf, pos + 4)",
        "pos += 6"]
    assert PURE.hot("read_count") == "_w.read_count" and COMPILED.hot("read_count") == "read_count"


def test_float64_keeps_struct_in_the_compiled_flavour(plan, compiled_plan) -> None:
    pure, compiled = (layout_at(p, "SampleResponse", 3) for p in (plan, compiled_plan))
    weights, ids = op_of(compiled, "weights"), op_of(compiled, "ids")
    assert type(weights) is FixedArray and isinstance(ids, IntegerArray)
    assert weights.read_short() == op_of(pure, "weights").read_short() == \
        "[*_unpack_float64s[weights_n](buf, pos + 1)]  # [*t] beats list(t) by a call"
    # up to three elements as a list display, more through a comprehension
    assert ids.read_short() == (
        "[read_i32_be(buf, pos + 1)] if ids_n == 1"
        " else [read_i32_be(buf, pos + 1), read_i32_be(buf, pos + 5)] if ids_n == 2"
        " else [read_i32_be(buf, pos + 1), read_i32_be(buf, pos + 5), read_i32_be(buf, pos + 9)] if ids_n == 3"
        " else [read_i32_be(buf, pos + 1 + 4 * k) for k in range(ids_n)]")


def test_rows_are_unpacked_at_once_when_pure_and_built_one_by_one_when_compiled(plan, compiled_plan) -> None:
    points = op_of(layout_at(plan, "SampleResponse", 3), "points")
    compiled_points = op_of(layout_at(compiled_plan, "SampleResponse", 3), "points")
    assert type(points) is StructArray and isinstance(compiled_points, CompiledStructArray)
    pure = points.read_rows(PURE)
    assert "    for points_row in _rows_Point_v3_5(points_rows):" in pure
    assert "if len(points_rows) == points_n * 7 and not any(points_rows[6::7]):" in pure
    compiled = compiled_points.read_rows(COMPILED)
    assert "    if pos + 7 <= size and buf[pos + 6] == 0:" in compiled
    assert "        points_item = Point(x=read_i32_be(buf, pos), y=read_i16_be(buf, pos + 4))" in compiled


# --- names and version ranges -----------------------------------------------------------------------

@pytest.mark.parametrize(("versions", "name"), [
    (Versions(0, MAX_VERSION), "_V0_PLUS"), (Versions(3, MAX_VERSION), "_V3_PLUS"), (Versions(0, 2), "_V0_TO_2"),
    (Versions(5, 5), "_V5_ONLY"), (NONE, "NEVER"),
])
def test_version_ranges_have_names(versions, name) -> None:
    constants = ModuleConstants()
    assert constants.versions(versions) == name
    assert constants.sorted_ranges() == ([] if versions.empty else [(name, (versions.lowest, versions.highest))])


def test_version_notes_say_where_a_field_is_on_the_wire(sample) -> None:
    notes = {f.name: versions_note(f) for f in sample.fields}
    assert notes["ThrottleTimeMs"] == "versions 0+"
    assert notes["Gone"] == "versions 0-1, ignorable"
    assert notes["Name"] == "versions 0+, nullable 4+"
    assert notes["Records"] == "versions 0+, nullable"
    assert notes["Hint"] == "versions 3+, nullable, tag 0"
    assert notes["Cursor"] == "versions 5+, tag 1"
    assert versions_note(sample.fields[12].struct.fields[0]) == "versions 0+, map key"


def test_helpers_are_named_after_the_fields_they_read(plan) -> None:
    assert "_unpack_SampleResponse_throttle_time_ms_error_code" in plan.helpers
    assert plan.helpers["_pack_Point_x_y"] == 'struct.Struct(">ih").pack'
    assert plan.helpers["_unpack_int32s"] == '_w.UNPACK_ARRAY["i"]'  # short int32 arrays, by count


def test_instance_locals_say_what_they_hold(sample) -> None:
    structs = {s.name: s for s in sample.all_structs() + [sample.struct]}
    assert instance_name(structs["SampleResponse"]) == "response"
    assert instance_name(structs["Point"]) == "point"
    assert instance_name(structs["Point2"]) == "point2"
    taken = load_text("""{"type": "data", "name": "BufferSize", "validVersions": "0", "flexibleVersions": "none",
      "fields": [{"name": "Size", "type": "int32", "versions": "0+"}]}""", "BufferSize.json")
    assert instance_name(taken.struct) == "buffer_size"  # "size" is the reader's len(buf)
    api = load_text("""{"type": "data", "name": "ApiVersion", "validVersions": "0", "flexibleVersions": "none",
      "fields": [{"name": "ApiKey", "type": "int16", "versions": "0+"}]}""", "ApiVersion.json")
    assert instance_name(api.struct) == "api_version"  # "version" would read as the protocol version


def test_tuples_are_written_as_python_reads_them() -> None:
    assert tuple_source(["a"]) == "(a,)" and tuple_source(["a", "b"]) == "(a, b)"


# --- the module as a whole --------------------------------------------------------------------------

def test_the_module_describes_each_field_and_runs(sample) -> None:
    source = render_message(sample)
    assert '    throttle_time_ms: int  # versions 0+\n    """Milliseconds held back."""\n' in source
    assert "    cursor: int  # versions 5+, tag 1\n" in source
    assert ('    FieldInfo(attr="hint", json_name="hint", type="Hint", versions=_V3_PLUS, nullable=_V3_PLUS, '
            'tagged=_V3_PLUS, tag=0, struct=Hint),') in source
    namespace: dict = {}
    exec(compile(source, "sample_response.py", "exec"), namespace)
    cls = namespace["SampleResponse"]
    hint = next(f for f in cls.FIELDS if f.attr == "hint")
    assert (hint.versions, hint.nullable, hint.tagged, hint.tag, hint.default) == ((3, MAX_VERSION),) * 3 + (0, None)
    gone = next(f for f in cls.FIELDS if f.attr == "gone")
    assert (gone.nullable, gone.tagged, gone.ignorable) == ((1, 0), (1, 0), True)
    obj = cls(name="k", ids=[1, 2], points=[namespace["Point"](x=1, y=2)])
    for version in range(6):
        assert cls.decode(obj.encode(version), version) == obj
    obj.cursor = 7  # tagged, at 5 only
    assert cls.decode(obj.encode(5), 5) == obj and obj.encode(5).endswith(bytes([1, 1, 8]) + (7).to_bytes(8, "big"))


# Named after a hot-path message: bridges are a hot-path fast path (plan.on_hot_path).
BRIDGED = """{
  "apiKey": 1, "type": "response", "name": "FetchResponse",
  "validVersions": "0-1", "flexibleVersions": "1+",
  "fields": [
    {"name": "Id", "type": "int32", "versions": "0+"},
    {"name": "Aborted", "type": "[]int64", "versions": "0+", "nullableVersions": "0+"},
    {"name": "Replica", "type": "int32", "versions": "0+"},
    {"name": "Kept", "type": "[]int64", "versions": "0+"},
    {"name": "Last", "type": "int16", "versions": "0+"}
  ]
}"""


def test_a_nullable_compact_array_between_runs_is_read_with_them_when_null_or_empty() -> None:
    plan = emit_plan.plan(load_text(BRIDGED, "FetchResponse.json"), PURE)
    classic, flexible = layout_at(plan, "FetchResponse", 0), layout_at(plan, "FetchResponse", 1)
    assert not classic.bridges  # a classic count is four bytes: no one-byte test
    # one bridge: Aborted is nullable; Kept is not (it usually has elements), so Replica is not shared
    (bridge,) = flexible.bridges.values()
    assert (bridge.before.fields[0].attr_name, bridge.array.attr, bridge.after.fields[0].attr_name) == \
        ("id", "aborted", "replica")
    assert plan.helpers[bridge.unpack] == 'struct.Struct(">iBi").unpack_from'
    pure = bridge.read("response", PURE)
    assert pure[:4] == [
        "if pos + 9 <= size and buf[pos + 4] <= 1:  "
        "# the usual case: aborted null or empty, read with the runs around it",
        "    response.id, aborted_byte, response.replica = _unpack_FetchResponse_id_to_replica(buf, pos)",
        "    if aborted_byte == 0:  # null",
        "        response.aborted = None"]
    assert "    pos += 9" in pure and "else:" in pure
    assert COMPILED.bridges_empty_arrays is False  # compiled reads the runs with integer readers
    compiled = emit_plan.plan(load_text(BRIDGED, "FetchResponse.json"), COMPILED)
    assert not layout_at(compiled, "FetchResponse", 1).bridges
    module = render_message(load_text(BRIDGED, "FetchResponse.json"))
    assert "_unpack_FetchResponse_id_to_replica(buf, pos)" in module
