"""docs/ci.md's commands run as written (with ``--cases 20``), in a project laid out as the page says:
the baseline commands, every ``run:`` step of the workflow but ``pip install``, the project's own
test from the page, and the pre-commit hooks (both YAML files read by pre-commit's own loader).
Then a definition is worsened the way a careless change would: the same steps must fail."""
from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kwire.cli.main import build_parser
from tests.optional import later
from tests.packages import junitparser
from tests.paths import MESSAGE_DEFS, REPO

yaml = later("yaml")
load_config = later("pre_commit.clientlib", "load_config")
load_manifest = later("pre_commit.clientlib", "load_manifest")

PAGE = REPO / "docs" / "ci.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
FAST = ("--cases 200", "--cases 20")  # the only change made to the page's commands
DEFINITIONS = ("ApiVersionsRequest.json", "QuorumStateData.json")


def page_blocks(language: str) -> list[str]:
    return [m.group(2) for m in FENCE.finditer(PAGE.read_text()) if m.group(1) == language]


def workflow() -> dict:
    return next(doc for doc in map(yaml.safe_load, page_blocks("yaml")) if isinstance(doc, dict) and "jobs" in doc)


def run(command: str, project: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-euo", "pipefail", "-c", command.replace(*FAST)], cwd=project, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture()
def project(tmp_path) -> tuple[Path, dict[str, str]]:
    """defs/ (two of kwire's definitions), tests/test_codecs.py from the page, a git repository
    whose main branch is also origin/main (as actions/checkout with fetch-depth 0 leaves it)."""
    root = tmp_path / "project"
    (root / "defs").mkdir(parents=True)
    for name in DEFINITIONS:
        shutil.copy(MESSAGE_DEFS / name, root / "defs" / name)
    [test_code] = page_blocks("python")
    path = test_code.splitlines()[0].removeprefix("# ")
    (root / path).parent.mkdir(parents=True)
    (root / path).write_text(test_code)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "HYPOTHESIS"))}
    bin_dir = tmp_path / "bin"  # `kwire` and `pytest` as the CI job has them: this Python's
    bin_dir.mkdir()
    for tool, module in (("kwire", "kwire"), ("pytest", "pytest")):
        (bin_dir / tool).write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m {module} "$@"\n')
        (bin_dir / tool).chmod(0o755)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    env.update({k: str(root / v) if v == "." else v for k, v in workflow()["jobs"]["protocol"]["env"].items()})
    env.update(GIT_AUTHOR_NAME="ci", GIT_AUTHOR_EMAIL="ci@example.org", GIT_COMMITTER_NAME="ci",
               GIT_COMMITTER_EMAIL="ci@example.org")
    return root, env


def git(project: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["git", *args], cwd=project, env=env, check=True, capture_output=True)


def steps() -> list[str]:
    commands = [step["run"] for step in workflow()["jobs"]["protocol"]["steps"] if "run" in step]
    installs = [c for c in commands if c.startswith("pip install")]
    assert installs == ['pip install "kwire[fuzz]" pytest']  # this environment has them; nothing else is skipped
    return [c for c in commands if c not in installs]


def test_the_ci_page_runs_and_its_gate_stops_a_worsened_definition(project) -> None:
    root, env = project
    for line in page_blocks("sh")[0].splitlines():  # once: generate, make the baseline
        done = run(line, root, env)
        assert done.returncode == 0, f"{line}\n{done.stdout}{done.stderr}"
    assert (root / "reports" / "fuzz" / "report.json").is_file()
    git(root, env, "init", "-q", "-b", "main")
    git(root, env, "add", ".")
    git(root, env, "commit", "-q", "-m", "definitions, codecs, baseline")
    git(root, env, "update-ref", "refs/remotes/origin/main", "HEAD")

    commands = steps()
    assert [c.split()[:2] for c in commands] == [["kwire", "generate"], ["kwire", "check-compat"],
                                                  ["kwire", "fuzz"], ["pytest", "-q"]]
    passing = {command.split()[1]: run(command, root, env) for command in commands}
    for command, done in zip(commands, passing.values(), strict=True):
        assert done.returncode == 0, f"{command}\n{done.stdout}{done.stderr}"
    assert "time budget of 300 s: all cases 0..19 of every version (seed 0) ran" in passing["fuzz"].stderr
    assert "7 passed" in passing["-q"].stdout  # the page's test, through kwire's pytest plugin
    [suite] = list(junitparser.JUnitXml.fromfile(str(root / "fuzz-junit.xml")))
    assert (suite.tests, suite.failures) == (5 + 2, 0)  # ApiVersionsRequest v0-4, QuorumStateData v0-1

    # a careless change: ClientSoftwareVersion only from v4 on, so v4 -> v3 now drops it silently
    definition = root / "defs" / "ApiVersionsRequest.json"
    text = definition.read_text()
    old = '{ "name": "ClientSoftwareVersion", "type": "string", "versions": "3+",'
    assert old in text
    definition.write_text(text.replace(old, old.replace('"3+"', '"4+"')))
    regenerate = page_blocks("sh")[0].splitlines()[0]
    assert run(regenerate, root, env).returncode == 0  # the developer regenerated mycodecs/

    outcomes = {command.split()[1]: run(command, root, env) for command in commands}
    assert outcomes["generate"].returncode == 0
    assert outcomes["check-compat"].returncode == 1
    assert "ApiVersionsRequest.ClientSoftwareVersion: field-removed at v3" in outcomes["check-compat"].stdout
    fuzz = outcomes["fuzz"]
    assert fuzz.returncode == 1
    assert [line for line in fuzz.stderr.splitlines() if line.startswith("WORSE")] == [
        "WORSE ApiVersionsRequest 4->3: lossless -> lossy: lossless turned lossy; loses client_software_version"]
    [suite] = list(junitparser.JUnitXml.fromfile(str(root / "fuzz-junit.xml")))
    failed = [f"{case.classname} {case.name}" for case in suite if not case.is_passed]
    assert failed == ["kwire.fuzz.ApiVersionsRequest v4"]
    assert outcomes["-q"].returncode == 0  # the round trips themselves still hold


def test_the_pre_commit_hooks_are_valid_and_run(project) -> None:
    root, env = project
    hooks = {hook["id"]: hook for hook in load_manifest(str(REPO / ".pre-commit-hooks.yaml"))}
    assert set(hooks) == {"kwire-check-compat", "kwire-fuzz"}
    parser = build_parser()
    for hook in hooks.values():  # kwire's own defaults are valid kwire command lines
        entry = shlex.split(hook["entry"])
        assert entry[0] == "kwire" and not hook["pass_filenames"]
        assert isinstance(parser.parse_args(entry[1:] + hook["args"]), argparse.Namespace)

    [config_text] = [block for block in page_blocks("yaml") if "repos:" in block]
    config_path = root / ".pre-commit-config.yaml"
    config_path.write_text(config_text)
    [repo] = load_config(str(config_path))["repos"]
    for line in page_blocks("sh")[0].splitlines():
        assert run(line, root, env).returncode == 0
    git(root, env, "init", "-q", "-b", "main")
    git(root, env, "add", ".")
    git(root, env, "commit", "-q", "-m", "initial")
    for configured in repo["hooks"]:  # what pre-commit runs: the hook's entry with the project's args
        command = shlex.join(shlex.split(hooks[configured["id"]]["entry"]) + configured["args"])
        done = run(command, root, env)
        assert done.returncode == 0, f"{command}\n{done.stdout}{done.stderr}"
