"""Reports of a sweep (:func:`kwire.fuzz.sweep.sweep`): JSON, Markdown and one heatmap per message.

The pictures need matplotlib (the ``report`` extra); it is imported only when drawing, with the
Agg backend so no display is needed.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kwire.wire.files import atomic_output, atomic_write

from .matrix import OUTCOMES
from .sweep import cell_problems
from .sweep import unshown as unshown_fields

# Colour-blind-friendly (Okabe-Ito) colours, in OUTCOMES order.
COLORS = {"lossless": "#009E73", "lossy": "#E69F00", "refused": "#56B4E9", "failed": "#D55E00"}
SHORT = {"lossless": "lossless", "lossy": "lossy", "refused": "refused", "failed": "FAIL"}


def reproduce_command(result: dict[str, Any], message: str, index: int) -> str:
    extra = f" --package {result['package']}" if result["package"] != "kwire.generated" else ""
    extra += " --unknown-tags" if result["unknown_tags"] else ""
    return f"kwire fuzz --messages {message} --seed {result['seed']} --start {index} --cases 1{extra}"


def summary_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per message: cells by outcome and everything that makes the sweep fail."""
    rows = []
    for name, message in result["messages"].items():
        counts = dict.fromkeys(OUTCOMES, 0)
        failed_cases = contradictions = unshown = 0
        for cell in message["cells"].values():
            counts[cell["outcome"]] += 1
            failed_cases += cell["observed"]["failed"]
            contradictions += len(cell["contradictions"])
            unshown += len(unshown_fields(cell))
        low, high = message["versions"]
        rows.append({"message": name, "versions": f"{low}-{high}", **counts, "failed_cases": failed_cases,
                     "contradictions": contradictions, "unshown": unshown})
    return rows


def format_table(rows: list[dict[str, Any]]) -> str:
    """A plain-text table (for the terminal); the same columns as the Markdown one."""
    headers = ["message", "versions", "lossless", "lossy", "refused", "failed", "failed_cases",
               "contradictions", "unshown"]
    widths = [max(len(h), *(len(str(r[h])) for r in rows)) if rows else len(h) for h in headers]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=False))]
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        lines.append("  ".join(str(row[h]).ljust(w) for h, w in zip(headers, widths, strict=False)))
    return "\n".join(lines)


def write_json(result: dict[str, Any], path: Path, *, force: bool = False) -> None:
    atomic_write(path, json.dumps(result, indent=1, sort_keys=True) + "\n", force=force)


def markdown(result: dict[str, Any], pictures: dict[str, str] | None = None) -> str:
    summary = result["summary"]
    out = [
        "# kwire fuzz report",
        "",
        f"Package `{result['package']}`, seed {result['seed']}, cases {result['start']}.."
        f"{result['start'] + result['cases'] - 1} per version"
        f"{', unknown tagged fields kept across versions' if result['unknown_tags'] else ''}.",
        "",
        f"**{'PASSED' if summary['passed'] else 'FAILED'}**: {summary['cells']} cells, "
        f"{_count(summary['failed_cases'], 'failing case')}, "
        f"{_count(summary['contradictions'], 'contradiction')} with the static classification, "
        f"{_count(summary['unshown_fields'], 'field')} that the static classification names as losable "
        f"or refusing but no directed search could show lost or refused.",
        "",
        "A cell *from -> to* writes instances valid at *from* at version *to* and reads them back: "
        "`lossless` all came back equal, `lossy` some came back different, `refused` some could not be "
        "written at *to*, `FAIL` a codec bug. "
        "The diagonal checks the round-trip properties.",
        "",
    ]
    rows = summary_rows(result)
    headers = list(rows[0]) if rows else []
    out += ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(str(r[h]) for h in headers) + " |" for r in rows]
    failures = _failures(result)
    if failures:
        out += ["", "## Failing cases", ""]
        out += [f"- {f}" for f in failures]
    for name, message in result["messages"].items():
        out += ["", f"## {name}", ""]
        if pictures and name in pictures:
            out += [f"![{name} cross-version matrix]({pictures[name]})", ""]
        out += _matrix_table(message)
        out += _cell_notes(message)
    return "\n".join(out) + "\n"


def _failures(result: dict[str, Any]) -> list[str]:
    lines = []
    for name, message in result["messages"].items():
        for key, cell in message["cells"].items():
            for kind, at, detail in cell_problems(cell):
                if kind == "failed":
                    lines.append(f"`{name}` {key} case {at}: {detail} "
                                 f"(reproduce: `{reproduce_command(result, name, at)}`)")
                elif kind == "contradiction":
                    lines.append(f"`{name}` {key}: contradiction: {detail}")
                else:
                    lines.append(f"`{name}` {key}: {at} not shown: {detail}")
    return lines


def _versions(message: dict[str, Any]) -> list[int]:
    low, high = message["versions"]
    return list(range(low, high + 1))


def _matrix_table(message: dict[str, Any]) -> list[str]:
    versions = _versions(message)
    lines = ["| from \\ to | " + " | ".join(f"v{v}" for v in versions) + " |",
             "|---|" + "---|" * len(versions)]
    for f in versions:
        cells = [SHORT[message["cells"][f"{f}->{t}"]["outcome"]] for t in versions]
        lines.append(f"| **v{f}** | " + " | ".join(cells) + " |")
    return lines


def _cell_notes(message: dict[str, Any]) -> list[str]:
    notes = []
    for key, cell in message["cells"].items():
        static = cell["static"]
        if not static["losable"] and not static["refusing"]:
            continue
        parts = []
        if static["losable"]:
            lost = cell["observed"]["lost_fields"]
            parts.append("loses " + ", ".join(f"`{p}`" + (f" ({lost[p]} cases)" if p in lost else "")
                                              for p in static["losable"]))
        if static["refusing"]:
            parts.append("refuses " + ", ".join(f"`{r['path']}` ({r['reason']})" for r in static["refusing"]))
        observed = cell["observed"]
        seen = f"{observed['lossless']} lossless, {observed['lossy']} lossy, {observed['refused']} refused"
        notes.append(f"- {key}: {'; '.join(parts)}. Seen: {seen}.")
    return ([""] + notes) if notes else []


def write_markdown(result: dict[str, Any], path: Path, pictures: dict[str, str] | None = None, *,
                   force: bool = False) -> None:
    atomic_write(path, markdown(result, pictures), force=force)


def draw_matrix(message_name: str, message: dict[str, Any], path: Path, *, force: bool = False) -> None:
    """A versions x versions heatmap of one message's cells, coloured by outcome."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    versions = _versions(message)
    n = len(versions)
    grid = [[OUTCOMES.index(message["cells"][f"{f}->{t}"]["outcome"]) for t in versions] for f in versions]
    size = max(3.6, 0.55 * n + 2.2)
    fig, ax = plt.subplots(figsize=(size + 1.6, size))
    ax.imshow(grid, cmap=ListedColormap([COLORS[o] for o in OUTCOMES]), vmin=-0.5, vmax=len(OUTCOMES) - 0.5)
    labels = {"lossless": "=", "lossy": "L", "refused": "R", "failed": "!"} if n > 6 else SHORT
    for i, f in enumerate(versions):
        for j, t in enumerate(versions):
            outcome = message["cells"][f"{f}->{t}"]["outcome"]
            ax.text(j, i, labels[outcome], ha="center", va="center", fontsize=9 if n <= 6 else 7,
                    color="white" if outcome in ("failed",) else "black")
    ax.set_xticks(range(n), [str(v) for v in versions])
    ax.set_yticks(range(n), [str(v) for v in versions])
    ax.set_xlabel("written and read back at version (to)")
    ax.set_ylabel("instance valid at version (from)")
    ax.set_title(message_name)
    ax.set_xticks([x - 0.5 for x in range(1, n)], minor=True)
    ax.set_yticks([y - 0.5 for y in range(1, n)], minor=True)
    ax.grid(which="minor", color="white", linewidth=1.5)
    ax.tick_params(which="minor", length=0)
    handles = [Patch(color=COLORS[o], label=o) for o in OUTCOMES]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    fig.tight_layout()
    with atomic_output(path, force=force) as out:
        fig.savefig(out, format="png", dpi=110)
    plt.close(fig)


def picture_name(message_name: str) -> str:
    return f"{message_name}.png"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun if n == 1 else noun + 's'}"


def report_files(directory: Path, messages: Iterable[str], *, pictures: bool = True) -> list[Path]:
    """The files :func:`write_report` writes into ``directory`` for these messages."""
    return [directory / "report.json", directory / "report.md",
            *(directory / picture_name(name) for name in messages if pictures)]


def write_report(result: dict[str, Any], directory: Path, *, pictures: bool = True, force: bool = False) -> list[Path]:
    """report.json, report.md and (with ``pictures``, which need matplotlib) one PNG per message in
    ``directory``; returns what was written. Existing files are replaced only with ``force``."""
    write_json(result, directory / "report.json", force=force)  # first: the data survives whatever drawing does
    drawn = []
    names = {}
    for name, message in result["messages"].items() if pictures else ():
        target = directory / picture_name(name)
        draw_matrix(name, message, target, force=force)
        names[name] = target.name
        drawn.append(target)
    write_markdown(result, directory / "report.md", names, force=force)
    return [directory / "report.json", directory / "report.md", *drawn]
