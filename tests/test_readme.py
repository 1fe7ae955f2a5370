"""Every Python and shell example in the README runs, as written.

Blocks fenced as ``python`` run in this process (the Spark ones on the suite's shared session),
blocks fenced as ``sh`` run in bash with ``set -euo pipefail``; both in a fresh clone of the
repository, so that relative paths such as ``tests/data/...`` and ``git:HEAD:...`` mean what they
say. ``text`` blocks are output samples and synopses, not examples. Examples that talk to a broker
start one themselves (``kwire.testing.mock_cluster``), as a reader's copy would. Examples that read
``s3://`` get the AWS variables of the suite's S3 server (moto, on loopback, holding
``s3://kafka-tier/kraft``).

A comment ``# => TEXT`` shows output: each such TEXT must be a line the example printed, in the
order the comments come.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import REPO

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
SHOWN_OUTPUT = re.compile(r"#\s*=>\s?(.*?)\s*$", re.M)


def assert_shows_its_output(line: int, code: str, printed: str) -> None:
    """Each ``# => TEXT`` of the example is a line of what it printed, in order."""
    lines = iter(printed.splitlines())
    for expected in SHOWN_OUTPUT.findall(code):
        assert any(got.rstrip() == expected for got in lines), (
            f"README.md:{line}: the example says it prints {expected!r}; it printed:\n{printed}")


def blocks(language: str) -> list[tuple[int, str]]:
    text = (REPO / "README.md").read_text()
    return [(text.count("\n", 0, m.start()) + 1, m.group(2)) for m in FENCE.finditer(text) if m.group(1) == language]


def test_every_block_says_what_it_is():
    text = (REPO / "README.md").read_text()
    untagged = [text.count("\n", 0, m.start()) + 1 for m in FENCE.finditer(text) if m.group(1) == ""]
    assert untagged == [], f"README lines {untagged}: fence as python, sh or text"
    assert blocks("python") and blocks("sh")


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """The committed repository, cloned, with the README's working-tree text."""
    target = tmp_path_factory.mktemp("readme") / "kwire"
    subprocess.run(["git", "clone", "--quiet", "--shared", str(REPO), str(target)], check=True)
    return target


@pytest.mark.parametrize(("line", "code"), blocks("python"), ids=lambda v: f"line{v}" if isinstance(v, int) else "")
def test_python_example(line, code, clone, monkeypatch, request, capsys):
    if "kwire.spark" in code:
        request.getfixturevalue("spark")  # the suite's one session: build_session() returns it
    if "s3://" in code:
        for key, value in request.getfixturevalue("s3").env.items():
            monkeypatch.setenv(key, value)
    monkeypatch.chdir(clone)
    exec(compile(code, f"README.md:{line}", "exec"), {"__name__": "readme"})
    assert_shows_its_output(line, code, capsys.readouterr().out)


@pytest.mark.parametrize(("line", "code"), blocks("sh"), ids=lambda v: f"line{v}" if isinstance(v, int) else "")
def test_shell_example(line, code, clone, request):
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "PYSPARK_PYTHON": sys.executable}
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=clone, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"README.md:{line}\n{code}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    assert_shows_its_output(line, code, done.stdout)


def test_no_example_needs_a_broker_from_outside():
    # a reader has no $KAFKA_BOOTSTRAP: the client examples start librdkafka's mock cluster
    text = (REPO / "README.md").read_text()
    assert "KAFKA_BOOTSTRAP" not in text
    assert all("mock_cluster" in code for _, code in blocks("python")
               if "KafkaClient(" in code or "aio.connect(" in code)


def test_the_output_comments_are_checked():
    shown = [(line, text) for language in ("python", "sh") for line, code in blocks(language)
             for text in SHOWN_OUTPUT.findall(code)]
    assert len(shown) >= 2, shown
    assert_shows_its_output(1, "print(1)  # => 1\nprint(2)  # => 2", "1\n2\n")
    with pytest.raises(AssertionError, match="says it prints '2'"):
        assert_shows_its_output(1, "print(1)  # => 2", "1\n")
    with pytest.raises(AssertionError, match="says it prints '1'"):  # in order
        assert_shows_its_output(1, "a  # => 2\nb  # => 1", "1\n2\n")
