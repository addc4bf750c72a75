"""Published figures redrawn from the model, with the published points on them.

Each figure is drawn from the data icnperf.api.validation_pages computes from the same
functions the claims evaluate, so the curve and the checked numbers agree.
"""

from __future__ import annotations

import plotly.graph_objects as go

from icnperf.reports.figures import COLOURS, figure


def angara_fig7(data: dict) -> go.Figure:
    """Angara collectives paper (Mukosey 2015) Fig. 7: hardware-tree speedup over the
    point-to-point tree vs node count, broadcast and all-reduce of one 256-byte packet on
    balanced 3D and 4D tori, with the published points."""
    fig = figure("Angara collectives paper, Fig. 7 redrawn: hw-tree speedup over p2p-tree"
                 " (one 256-byte packet)", "nodes", "p2p-tree time / hw-tree time (x)",
                 x_log=True, y_log=False, x_values=data["nodes"])
    for curve in data["curves"]:
        operation, dims, sweep = curve["operation"], curve["dims"], curve["model"]
        colour = COLOURS[0] if operation == "broadcast" else COLOURS[1]
        dash = "solid" if dims == 3 else "dash"
        fig.add_trace(go.Scatter(
            x=[n for n, _, _ in sweep], y=[r for _, _, r in sweep], mode="lines+markers",
            name=f"model: {operation}, {dims}D torus", line={"color": colour, "dash": dash},
            marker={"size": 5},
            text=["x".join(map(str, shape)) for _, shape, _ in sweep],
            hovertemplate="%{text}: %{y:.3g}x<extra></extra>"))
        points = curve["published"]
        if points:
            fig.add_trace(go.Scatter(
                x=[n for n, _ in points], y=[s for _, s in points],
                mode="markers", name=f"published: {operation}, {dims}D",
                marker={"color": colour, "size": 12,
                        "symbol": "diamond-open" if dims == 4 else "circle-open",
                        "line": {"width": 2}},
                hovertemplate="published %{y:.3g}x at %{x} nodes<extra></extra>"))
    return fig


def angara_fig9(data: dict) -> go.Figure:
    """Angara collectives paper (Mukosey 2015) Fig. 9: SpMV iteration time with the
    recursive-doubling all-gather over the hardware all-gather vs node count on a 4D torus,
    with the paper's largest gain and the claim's tolerance as its bar."""
    fig = figure("Angara collectives paper, Fig. 9 redrawn: SpMV iteration time,"
                 " recursive-doubling all-gather / hw-tree all-gather (4D torus)", "nodes",
                 "iteration time ratio (x)", x_log=True, y_log=False)
    fig.add_trace(go.Scatter(
        x=[n for n, _ in data["model"]], y=[g for _, g in data["model"]],
        mode="lines+markers",
        name=f"model: N = {data['matrix_rows']:,}, d = {data['nonzeros_per_row']}",
        line={"color": COLOURS[0]}, marker={"size": 5},
        hovertemplate="%{x} nodes: %{y:.3g}x<extra></extra>"))
    nodes, speedup = data["published"]
    fig.add_trace(go.Scatter(
        x=[nodes], y=[speedup], mode="markers",
        name="published: largest gain",
        marker={"color": COLOURS[0], "size": 12, "symbol": "circle-open",
                "line": {"width": 2}},
        error_y={"type": "constant", "value": data["tolerance"]},
        hovertemplate="published %{y:.3g}x at %{x} nodes<extra></extra>"))
    return fig


def angara_fig10(data: dict) -> go.Figure:
    """Angara collectives paper (Mukosey 2015) Fig. 10: heat-equation step time with the
    point-to-point all-reduce over the hardware all-reduce vs node count on a 4D torus, one
    curve per grid, with the published points."""
    fig = figure("Angara collectives paper, Fig. 10 redrawn: heat step time, p2p-tree"
                 " all-reduce / hw-tree all-reduce (4D torus)", "nodes",
                 "step time ratio (x)", x_log=True, y_log=False)
    for i, curve in enumerate(data["curves"]):
        colour = COLOURS[i % len(COLOURS)]
        cells = curve["cells"]
        fig.add_trace(go.Scatter(
            x=[n for n, _ in curve["model"]], y=[r for _, r in curve["model"]],
            mode="lines+markers", name=f"model: {cells:,} cells",
            line={"color": colour}, marker={"size": 5},
            hovertemplate="%{x} nodes: %{y:.3g}x<extra></extra>"))
        points = curve["published"]
        if points:
            fig.add_trace(go.Scatter(
                x=[n for n, _ in points], y=[s for _, s in points],
                mode="markers", name=f"published: {cells:,} cells",
                marker={"color": colour, "size": 12, "symbol": "circle-open",
                        "line": {"width": 2}},
                hovertemplate="published %{y:.3g}x at %{x} nodes<extra></extra>"))
    return fig


DRAWERS = {"angara-fig7": angara_fig7, "angara-fig9": angara_fig9,
           "angara-fig10": angara_fig10}
"""Each redrawn figure's drawer, by the ``figure`` name its data carries."""


def draw(redraws: list[dict]) -> list[go.Figure]:
    """The redrawn paper figures of ``redraws`` (each figure's data, named by ``figure``)."""
    return [DRAWERS[data["figure"]](data) for data in redraws]
