"""``kwire.testing`` in a user's project: its own generated package, hypothesis strategies from
``messages(cls, version)`` and the ``kwire_round_trip`` fixture of kwire's pytest plugin, run by
pytest in a subprocess the way the user's CI would (the plugin found through its entry point)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kwire.cli.main import main
from kwire.generated import ApiVersionsRequest, QuorumStateData
from kwire.testing import assert_round_trip, message_versions, messages
from kwire.wire.errors import UnsupportedVersionError
from kwire.wire.index import ProtocolIndex

# A user's own message: a nested array with a map key, a nullable string, a tagged field.
WIDGET = {
    "apiKey": 91, "type": "request", "name": "WidgetRequest",
    "validVersions": "0-2", "flexibleVersions": "1+",
    "fields": [
        {"name": "Owner", "type": "string", "versions": "0+", "nullableVersions": "1+", "about": "who"},
        {"name": "Parts", "type": "[]Part", "versions": "0+", "about": "the parts", "fields": [
            {"name": "Id", "type": "int32", "versions": "0+", "mapKey": True, "about": "part id"},
            {"name": "Weight", "type": "float64", "versions": "2+", "about": "in grams"},
        ]},
        {"name": "Note", "type": "string", "versions": "1+", "taggedVersions": "1+", "tag": 0,
         "ignorable": True, "about": "a note"},
    ],
}

USER_TEST = '''
import hypothesis
import pytest

import widgets
from kwire.testing import message_versions, messages


@pytest.mark.parametrize("cls, version", message_versions(widgets), ids=lambda p: getattr(p, "NAME", p))
def test_every_version_round_trips(cls, version, kwire_round_trip):
    @hypothesis.settings(max_examples=30, deadline=None, database=None)
    @hypothesis.given(messages(cls, version))
    def check(message):
        back = kwire_round_trip(message, version)
        assert back == message

    check()
'''


def make_project(root: Path, *, broken_at: int | None = None) -> Path:
    """A project folder with its definitions, the package kwire generated from them, and a test."""
    defs = root / "defs"
    defs.mkdir(parents=True)
    (defs / "WidgetRequest.json").write_text(json.dumps(WIDGET, indent=2))
    assert main(["generate", "-q", "--defs", str(defs), "--out", str(root / "widgets")]) == 0
    if broken_at is not None:  # a codec bug: a stray byte after the body at one version
        module = root / "widgets" / "widget_request.py"
        module.write_text(module.read_text() + textwrap.dedent(f"""
            _REAL = WidgetRequest._WRITERS
            WidgetRequest._WRITERS = tuple(
                (lambda o, out, f=f: (f(o, out), out.append(0))[0]) if v == {broken_at} else f
                for v, f in enumerate(_REAL))
        """))
    (root / "tests").mkdir()
    (root / "tests" / "test_widgets.py").write_text(USER_TEST)
    return root


def run_pytest(project: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "HYPOTHESIS"))}
    env["PYTHONPATH"] = str(project)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "tests"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=300)


def test_a_user_project_fuzzes_its_own_codecs_with_the_fixture(tmp_path) -> None:
    done = run_pytest(make_project(tmp_path / "good"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed" in done.stdout  # one per version of WidgetRequest


def test_the_fixture_fails_on_a_codec_bug_with_a_minimal_example(tmp_path) -> None:
    done = run_pytest(make_project(tmp_path / "broken", broken_at=2))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 2 passed" in done.stdout
    assert "test_every_version_round_trips[WidgetRequest-2]" in done.stdout
    assert "WidgetRequest v2 does not round-trip:" in done.stdout
    assert "1 bytes left after WidgetRequest v2" in done.stdout
    # hypothesis shrank it to the smallest instance: null owner, no parts, the default note
    assert "message=WidgetRequest(owner=None, parts=[], note='', unknown_tagged_fields=())" in done.stdout


def test_the_plugin_is_registered_and_loads_neither_the_fuzzer_nor_hypothesis() -> None:
    """pytest loads the plugin in every run (kwire's own suite too): it must cost nothing there
    (the mock cluster's small module, but not confluent-kafka)."""
    from importlib.metadata import entry_points

    assert [e.value for e in entry_points(group="pytest11") if e.name == "kwire"] == ["kwire.testing.plugin"]
    probe = ("import sys, kwire; before = set(sys.modules); import kwire.testing.plugin; "
             "print(sorted(m for m in set(sys.modules) - before "
             "if m.split('.')[0] in ('kwire', 'hypothesis', 'confluent_kafka')))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "['kwire.testing', 'kwire.testing.cluster', 'kwire.testing.plugin']"


def test_messages_refuses_a_version_the_class_does_not_have() -> None:
    with pytest.raises(UnsupportedVersionError, match="ApiVersionsRequest has versions 0-4, not 7"):
        messages(ApiVersionsRequest, 7)


def test_assert_round_trip_names_every_broken_property() -> None:
    request = ApiVersionsRequest(client_software_name="kwire")
    assert assert_round_trip(request, 3) == request
    request.client_software_name = "\ud800"  # a lone surrogate: not UTF-8, encode raises
    with pytest.raises(AssertionError, match=r"ApiVersionsRequest v3 does not round-trip:\n  encode v3 raised"):
        assert_round_trip(request, 3)


def test_message_versions_lists_every_version_of_every_message() -> None:
    # the index of a generated package with two messages in it
    package = ProtocolIndex("kwire.generated", modules={"QuorumStateData": "quorum_state_data",
                                                        "ApiVersionsRequest": "api_versions_request"})
    assert message_versions(package) == [(ApiVersionsRequest, v) for v in range(5)] + [(QuorumStateData, 0),
                                                                                       (QuorumStateData, 1)]
