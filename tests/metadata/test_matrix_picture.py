"""The downgrade matrix picture: each cell painted in its status's colour, and a legend that says so.

The figure is taken as drawn (``pyplot.subplots`` wrapped to keep it) and read back through
matplotlib's own colour lookup: the colour the image gives each cell's value, and each legend
entry's face colour, against the status the matrix report gives the cell.
"""
from __future__ import annotations

import pytest

from kwire.metadata.matrix import STATUSES, downgrade_matrix
from tests.optional import need_module
from tests.paths import KRAFT_390


@pytest.fixture
def drawn(monkeypatch, tmp_path):
    need_module("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kwire.metadata.matrix_picture import draw_matrix

    figures = []
    subplots = plt.subplots

    def keep(*args, **kwargs):
        figures.append(subplots(*args, **kwargs))
        return figures[-1]

    monkeypatch.setattr(plt, "subplots", keep)
    # one image at the newest level it has: no level above it, so the grid never holds the last colour
    report = downgrade_matrix([KRAFT_390])
    draw_matrix(report, tmp_path / "m.png")
    [(_, ax)] = figures
    return report, ax


def test_every_cell_has_its_status_colour(drawn):
    """Kills ``matrix_picture.x_draw_matrix__mutmut_126`` (the colour scale's top left to the data)."""
    from matplotlib.colors import to_rgba

    from kwire.metadata.matrix_picture import COLORS

    report, ax = drawn
    [image] = ax.images
    [row] = report["images"]
    by_level = {cell["level"]: cell["status"] for cell in row["cells"]}
    grid = image.get_array()
    levels = [lv["level"] for lv in report["levels"] if lv["level"] <= row["metadataVersion"]["level"]]
    assert grid.shape == (1, len(levels))
    for j, level in enumerate(levels):
        status = by_level.get(level, "current")
        assert image.cmap(image.norm(grid[0, j])) == to_rgba(COLORS[status]), (level, status)
    assert {"lossless", "lossy"} <= set(by_level.values())


def test_the_legend_shows_each_status_in_its_colour(drawn):
    """Kills ``matrix_picture.x_draw_matrix__mutmut_246`` (the legend's patches left uncoloured)."""
    from matplotlib.colors import to_rgba

    from kwire.metadata.matrix_picture import COLORS

    _, ax = drawn
    legend = ax.get_legend()
    shown = {text.get_text(): handle.get_facecolor() for text, handle in zip(legend.get_texts(),
                                                                            legend.legend_handles, strict=True)}
    assert shown == {k: to_rgba(COLORS[k]) for k in (*STATUSES, "current")}
