"""The hostile-input run over the Connection's receive path (kwire/fuzz/hostile/connection_targets.py):
random and mutated bytes let only kwire's errors escape, and nothing hangs."""
from __future__ import annotations

from kwire.fuzz.hostile.registry import all_targets, select
from kwire.fuzz.hostile.runner import run

CASES = 1500
RUN_SEED = 20261126


def test_bounded_hostile_run_on_the_connection_finds_nothing():
    chosen = select(all_targets(), ["connection"])
    assert [t.name for t in chosen] == ["connection:receive"] and len(chosen[0].seeds) >= 5
    result = run(chosen, CASES, RUN_SEED, memory_every=8)
    assert result.cases == CASES
    assert not result.findings, "\n".join(f.describe() for f in result.findings.values())
    assert sum(s.accepted for s in result.stats.values()) > 0  # some inputs get through whole
