"""The downgrade matrix: for each image and each metadata.version below its own, what a downgrade does.

A cell is one of

- ``lossless``: Kafka's controller allows the downgrade (no level between the two changed the
  metadata) and writing the image at the lower level loses nothing;
- ``refused``: the safe-downgrade rule refuses it (a level between them changed the metadata,
  Kafka's ``checkIfMetadataChanged``), though an unsafe write would lose nothing of this image;
- ``lossy``: writing the image at the lower level loses what the cell lists (Kafka's words);
- ``unsupported``: the writing release cannot write that level at all (Kafka 4.x below 3.3-IV3).

The safe-downgrade rule is :func:`kwire.features.metadata_changed_between`; beside it each cell
carries what Kafka's controller answers a safe downgrade request (``controllerVerdict``, from
:func:`kwire.features.update_features.judge_update_features`, Kafka 4.2.1's rules, which also
refuse levels that release no longer runs and levels a registered node does not support).

:func:`image_row` computes one image's row from its path alone, so the same function serves the
local run and one Spark task per image (:mod:`kwire.spark.downgrade`); :func:`downgrade_matrix`
puts rows together into the report ``kwire metadata downgrade-matrix --json`` prints (``--out FILE`` writes).
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from kwire.features import METADATA_VERSION, METADATA_VERSIONS, FeatureError, metadata_changed_between
from kwire.features.update_features import SAFE_DOWNGRADE, judge_update_features, update_request
from kwire.metadata.cluster_features import cluster_features
from kwire.metadata.loader import METADATA_DIRECTORY, load_image
from kwire.metadata.writer import UnwritableImageError, image_metadata_version, write_image, writer_release
from kwire.wire.errors import KwireError

STATUSES = ("lossless", "refused", "lossy", "unsupported")
#: Kafka's FeatureControlManager, refusing a safe downgrade across a level that changed the metadata.
SAFE_DOWNGRADE_REFUSAL = "Refusing to perform the requested downgrade because it might delete metadata information."


def label_of(path: str | os.PathLike) -> str:
    """A short name for an image's source: the data directory for ``__cluster_metadata-0``."""
    p = Path(path)
    if p.name == METADATA_DIRECTORY:
        return p.parent.name
    return p.name


def unique_labels(paths: Iterable[str | os.PathLike]) -> list[str]:
    """A label per path that tells it from the others: the shortest run of its last parts (its
    ``__cluster_metadata-0`` left out, as :func:`label_of` does) that no other path ends with,
    so ``a/kafka-data`` and ``b/kafka-data`` stay apart. The same path twice gets one label."""
    parts = []
    for path in paths:
        p = Path(path)
        parts.append((p.parent if p.name == METADATA_DIRECTORY else p).parts)
    labels = []
    for own in parts:
        others = {other for other in parts if other != own}
        size = 1
        while size < len(own) and any(other[-size:] == own[-size:] for other in others):
            size += 1
        labels.append(str(Path(*own[-size:])) if own else ".")
    return labels


def image_row(path: str, until: int | None = None, release: str | None = None, *,
              use_snapshots: bool = True) -> dict[str, Any]:
    """One image's row: its level and, for every known lower level, the cell. An image that cannot
    be read or written gives a row with its ``error`` and no cells, so the others still count."""
    try:
        return _image_row(path, until, release, use_snapshots)
    except (KwireError, OSError) as err:
        return {"source": str(path), "label": label_of(path), "error": str(err), "cells": []}


def _image_row(path: str, until: int | None, release: str | None, use_snapshots: bool = True) -> dict[str, Any]:
    known = {mv.level for mv in METADATA_VERSIONS}
    loaded = load_image(path, until=until, use_snapshots=use_snapshots, known_metadata_version=known.__contains__)
    image = loaded.image
    current = image_metadata_version(image)
    writer = writer_release(release, current.level)
    try:
        state = cluster_features(loaded)
    except FeatureError:
        state = None
    cells = []
    for target in METADATA_VERSIONS:
        if target.level >= current.level:
            break
        cell: dict[str, Any] = {"level": target.level, "name": target.name}
        refused = metadata_changed_between(current, target)
        cell["safeDowngrade"] = "refused" if refused else "allowed"
        cell["controllerVerdict"] = None if state is None else _controller_verdict(state, target.level)
        try:
            written = write_image(image, target, release=writer.name)
        except UnwritableImageError as err:
            cell.update(status="unsupported", losses=[], reason=str(err))
        else:
            cell["losses"] = [{"loss": loss.what, "kafkaWords": loss.kafka_words, "kafkaKeeps": loss.kafka_keeps}
                             for loss in written.losses]
            cell["status"] = "lossy" if written.losses else "refused" if refused else "lossless"
        cells.append(cell)
    return {
        "source": str(path),
        "label": label_of(path),
        "snapshot": str(loaded.snapshot) if loaded.snapshot else None,
        "endOffset": loaded.end_offset,
        "metadataVersion": {"level": current.level, "name": current.name},
        "release": writer.name,
        "cells": cells,
    }


def _controller_verdict(state: Any, level: int) -> dict[str, Any]:
    """What Kafka's controller answers an UpdateFeatures request safely downgrading to ``level``."""
    request = update_request({METADATA_VERSION: level}, upgrade_type=SAFE_DOWNGRADE, validate_only=True)
    verdict = judge_update_features(state, request, 1)
    return {"accepted": verdict.accepted, "message": verdict.response.error_message}


def downgrade_matrix(paths: Iterable[str | os.PathLike], *, until: int | None = None, release: str | None = None,
                     use_snapshots: bool = True,
                     map_rows: Callable[[Callable[[str], dict[str, Any]], list[str]], Iterator[dict[str, Any]]]
                     | None = None) -> dict[str, Any]:
    """The report for every image in ``paths``; ``map_rows(fn, paths)`` may run :func:`image_row`
    elsewhere (Spark), in path order."""
    listed = [str(p) for p in paths]

    def row(path: str) -> dict[str, Any]:
        return image_row(path, until, release, use_snapshots=use_snapshots)

    rows = list(map_rows(row, listed) if map_rows else map(row, listed))
    for found, label in zip(rows, unique_labels(listed), strict=False):
        found["label"] = label
    return report_of(rows)


def report_of(rows: list[dict[str, Any]]) -> dict[str, Any]:
    counts = dict.fromkeys(STATUSES, 0)
    for row in rows:
        for cell in row["cells"]:
            counts[cell["status"]] += 1
    return {
        "levels": [{"level": mv.level, "name": mv.name, "didMetadataChange": mv.did_metadata_change}
                   for mv in METADATA_VERSIONS],
        "images": rows,
        "summary": {"images": len(rows), "unreadable": sum(1 for row in rows if "error" in row), **counts},
    }


def format_matrix(report: dict[str, Any]) -> str:
    """A text form: per image, the lower levels grouped by outcome, with the losses."""
    lines = []
    for row in report["images"]:
        if "error" in row:
            lines.append(f"{row['label']}: cannot say: {row['error']}")
            continue
        mv = row["metadataVersion"]
        lines.append(f"{row['label']}: metadata.version {mv['name']} (level {mv['level']}), "
                     f"written as Kafka {row['release']} writes")
        for status in STATUSES:
            cells = [c for c in row["cells"] if c["status"] == status]
            if not cells:
                continue
            lines.append(f"  {status}: {_ranges([c['level'] for c in cells], {c['level']: c['name'] for c in cells})}")
            if status == "lossy":
                for loss, levels in _losses_by_text(cells).items():
                    lines.append(f"    - {loss} (at {_ranges(levels, {c['level']: c['name'] for c in cells})})")
    summary = report["summary"]
    unreadable = f" ({summary['unreadable']} unreadable)" if summary["unreadable"] else ""
    lines.append(f"{summary['images']} image(s){unreadable}: " + ", ".join(f"{summary[s]} {s}" for s in STATUSES))
    return "\n".join(lines)


def _losses_by_text(cells: list[dict[str, Any]]) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for cell in cells:
        for loss in cell["losses"]:
            found.setdefault(loss["loss"], []).append(cell["level"])
    return found


def _ranges(levels: list[int], names: dict[int, str]) -> str:
    """``3.0-IV1..3.6-IV2`` for runs of consecutive levels, comma-separated."""
    runs: list[list[int]] = []
    for level in sorted(levels):
        if runs and level == runs[-1][-1] + 1:
            runs[-1].append(level)
        else:
            runs.append([level])
    return ", ".join(names[r[0]] if len(r) == 1 else f"{names[r[0]]}..{names[r[-1]]}" for r in runs)
