"""The downgrade matrix as a heatmap: one row per image, one column per metadata.version.

Drawn as :mod:`kwire.fuzz.report` draws its matrices (matplotlib with the Agg backend, the
``report`` extra, Okabe-Ito colours). A lossy cell names its losses by letter; the letters are
spelled out under the picture in Kafka's words. The image's own level is marked, levels above it
are left empty.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from kwire.metadata.matrix import STATUSES
from kwire.wire.files import atomic_output

COLORS = {"lossless": "#009E73", "refused": "#56B4E9", "lossy": "#E69F00", "unsupported": "#BBBBBB",
          "current": "#444444", "above": "#FFFFFF"}
LABELS = {"lossless": "=", "refused": "R", "unsupported": "-"}


def loss_letters(report: dict[str, Any]) -> dict[str, str]:
    """Each distinct loss of the report -> a letter, in order of first appearance."""
    letters: dict[str, str] = {}
    for row in report["images"]:
        for cell in row["cells"]:
            for loss in cell["losses"]:
                if loss["loss"] not in letters:
                    letters[loss["loss"]] = "abcdefghijklmnopqrstuvwxyz"[len(letters) % 26]
    return letters


def draw_matrix(report: dict[str, Any], path: Path, *, force: bool = False) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    rows = [row for row in report["images"] if "error" not in row]
    top = max((row["metadataVersion"]["level"] for row in rows), default=1)
    levels = [lv for lv in report["levels"] if lv["level"] <= top]
    kinds = [*STATUSES, "current", "above"]
    letters = loss_letters(report)
    grid, texts = [], []
    for row in rows:
        by_level = {cell["level"]: cell for cell in row["cells"]}
        own = row["metadataVersion"]["level"]
        grid_row, text_row = [], []
        for lv in levels:
            cell = by_level.get(lv["level"])
            if cell is not None:
                kind = cell["status"]
                text = "".join(letters[loss["loss"]] for loss in cell["losses"]) if kind == "lossy" else LABELS[kind]
            else:
                kind = "current" if lv["level"] == own else "above"
                text = "*" if kind == "current" else ""
            grid_row.append(kinds.index(kind))
            text_row.append(text)
        grid.append(grid_row)
        texts.append(text_row)
    width = max(6.0, 0.42 * len(levels) + 3.0)
    height = max(2.6, 0.5 * len(rows) + 1.8 + 0.22 * len(letters))
    fig, ax = plt.subplots(figsize=(width, height))
    ax.imshow(grid, cmap=ListedColormap([COLORS[k] for k in kinds]), vmin=-0.5, vmax=len(kinds) - 0.5, aspect="auto")
    for i, text_row in enumerate(texts):
        for j, text in enumerate(text_row):
            if text:
                ax.text(j, i, text, ha="center", va="center", fontsize=7,
                        color="white" if grid[i][j] == kinds.index("current") else "black")
    ax.set_xticks(range(len(levels)), [lv["name"] for lv in levels], rotation=90, fontsize=7)
    ax.set_yticks(range(len(rows)), [f"{r['label']}\n({r['metadataVersion']['name']}, Kafka {r['release']})"
                                     for r in rows], fontsize=7)
    ax.set_xticks([x - 0.5 for x in range(1, len(levels))], minor=True)
    ax.set_yticks([y - 0.5 for y in range(1, len(rows))], minor=True)
    ax.grid(which="minor", color="white", linewidth=1.2)
    ax.tick_params(which="minor", length=0)
    ax.set_xlabel("metadata.version downgraded to")
    ax.set_title("metadata.version downgrades: what each would do")
    handles = [Patch(color=COLORS[k], label=k) for k in (*STATUSES, "current")]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=8)
    if letters:
        note = "\n".join(f"{letter}: {loss}" for loss, letter in letters.items())
        fig.text(0.01, 0.01, "lost:\n" + note, ha="left", va="bottom", fontsize=7)
    fig.tight_layout(rect=(0, 0.04 + 0.03 * len(letters), 1, 1))
    with atomic_output(path, force=force) as out:
        fig.savefig(out, format="png", dpi=110)
    plt.close(fig)
