"""A hostile-input run as text (summary by family, slowest targets, findings) and as JSON."""
from __future__ import annotations

from collections import defaultdict

from .runner import RunResult, TargetStats

SLOWEST_SHOWN = 10


def _family(name: str) -> str:
    return name.split(":", 1)[0]


def _line(label: str, count: int, stats: list[TargetStats]) -> str:
    cases = sum(s.cases for s in stats)
    accepted = sum(s.accepted for s in stats)
    real = cases - sum(s.skipped for s in stats)
    seconds = sum(s.seconds for s in stats)
    timed = sum(s.timed for s in stats)
    rate = timed / seconds if seconds else 0.0
    worst = max((s.worst_memory_ratio for s in stats), default=0.0)
    findings = sum(s.findings for s in stats)
    share = 100.0 * accepted / real if real else 0.0
    return (f"{label:<22} {count:>7} {cases:>10} {share:>8.1f}% {seconds:>9.1f} {rate:>10.0f} "
            f"{worst:>9.3f} {findings:>8}")


def text_report(result: RunResult) -> str:
    rate = result.cases / result.wall_seconds if result.wall_seconds else 0.0
    lines = [
        f"hostile input: {result.cases} inputs in {result.wall_seconds:.1f} s ({rate:.0f} inputs/s overall), "
        f"seed {result.seed}, {len(result.stats)} targets" + (" (interrupted)" if result.interrupted else ""),
        "",
        f"{'family':<22} {'targets':>7} {'inputs':>10} {'decoded':>9} {'decode s':>9} {'inputs/s':>10} "
        f"{'mem/budget':>9} {'findings':>8}",
    ]
    by_family: dict[str, list[TargetStats]] = defaultdict(list)
    for stats in result.stats.values():
        by_family[_family(stats.name)].append(stats)
    for family, members in by_family.items():
        lines.append(_line(family, len(members), members))
    lines.append(_line("all", len(result.stats), list(result.stats.values())))
    ran = [s for s in result.stats.values() if s.timed]
    if ran:
        lines += ["", "slowest targets (inputs/s of decode):"]
        for stats in sorted(ran, key=lambda s: s.rate)[:SLOWEST_SHOWN]:
            lines.append(f"  {stats.name:<48} {stats.rate:>10.0f}  ({stats.cases} inputs)")
    lines.append("")
    if not result.findings:
        lines.append("findings: none")
    else:
        lines.append(f"findings: {result.finding_count} inputs, {len(result.findings)} distinct")
        for finding in result.findings.values():
            lines.append(finding.describe())
    return "\n".join(lines)


def json_report(result: RunResult) -> dict:
    return {
        "seed": result.seed,
        "inputs": result.cases,
        "wall_seconds": round(result.wall_seconds, 3),
        "inputs_per_second": round(result.cases / result.wall_seconds, 1) if result.wall_seconds else 0.0,
        "interrupted": result.interrupted,
        "targets": {
            s.name: {"inputs": s.cases, "decoded": s.accepted, "not_inputs": s.skipped,
                     "decode_seconds": round(s.seconds, 4),
                     "inputs_per_second": round(s.rate, 1), "memory_samples": s.memory_samples,
                     "worst_memory_ratio": round(s.worst_memory_ratio, 4), "findings": s.findings}
            for s in result.stats.values()
        },
        "findings": [f.as_json() for f in result.findings.values()],
    }
