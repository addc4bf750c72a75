"""Published figures redrawn from the model, with the published points on them.

Each entry says which claims it illustrates (an id prefix) and draws the paper's axes from
the same functions the claims evaluate, so the curve and the checked numbers agree.
"""

from __future__ import annotations

import plotly.graph_objects as go

from icnperf.reports.figures import COLOURS, figure


def angara_fig7() -> go.Figure:
    """Angara collectives paper (Mukosey 2015) Fig. 7: hardware-tree speedup over the
    point-to-point tree vs node count, broadcast and all-reduce of one 256-byte packet on
    balanced 3D and 4D tori (model: validation.claims.angara_collectives.sweep_ratios;
    points: the bundled table angara-collectives-fig7)."""
    from icnperf.data.measurements.tables import load_table
    from icnperf.validation.claims import angara_collectives as fig7

    published = load_table(fig7.TABLE).rows()
    nodes_all = [n for dims in fig7.SWEEP for n in fig7.SWEEP[dims]]
    fig = figure("Angara collectives paper, Fig. 7 redrawn: hw-tree speedup over p2p-tree"
                 " (one 256-byte packet)", "nodes", "p2p-tree time / hw-tree time (x)",
                 x_log=True, y_log=False, x_values=nodes_all)
    styles = {("broadcast", 3): (COLOURS[0], "solid"), ("broadcast", 4): (COLOURS[0], "dash"),
              ("allreduce", 3): (COLOURS[1], "solid"), ("allreduce", 4): (COLOURS[1], "dash")}
    for (operation, dims), (colour, dash) in styles.items():
        sweep = fig7.sweep_ratios(operation, dims)
        fig.add_trace(go.Scatter(
            x=[n for n, _, _ in sweep], y=[r for _, _, r in sweep], mode="lines+markers",
            name=f"model: {operation}, {dims}D torus", line={"color": colour, "dash": dash},
            marker={"size": 5},
            text=["x".join(map(str, shape)) for _, shape, _ in sweep],
            hovertemplate="%{text}: %{y:.3g}x<extra></extra>"))
        points = [r for r in published if r["operation"] == operation and r["dims"] == dims]
        if points:
            fig.add_trace(go.Scatter(
                x=[r["nodes"] for r in points], y=[r["speedup"] for r in points],
                mode="markers", name=f"published: {operation}, {dims}D",
                marker={"color": colour, "size": 12,
                        "symbol": "diamond-open" if dims == 4 else "circle-open",
                        "line": {"width": 2}},
                hovertemplate="published %{y:.3g}x at %{x} nodes<extra></extra>"))
    return fig


def angara_fig9() -> go.Figure:
    """Angara collectives paper (Mukosey 2015) Fig. 9: SpMV iteration time with the
    recursive-doubling all-gather over the hardware all-gather vs node count on a 4D torus
    (model: validation.claims.angara_spmv.gain over its SWEEP; point: the bundled table
    angara-spmv-fig9, the paper's largest gain)."""
    from icnperf.data.measurements.tables import load_table
    from icnperf.validation.claims import angara_spmv as fig9

    (row,) = load_table(fig9.TABLE).rows()
    fig = figure("Angara collectives paper, Fig. 9 redrawn: SpMV iteration time,"
                 " recursive-doubling all-gather / hw-tree all-gather (4D torus)", "nodes",
                 "iteration time ratio (x)", x_log=True, y_log=False)
    fig.add_trace(go.Scatter(
        x=list(fig9.SWEEP), y=[fig9.gain(n) for n in fig9.SWEEP], mode="lines+markers",
        name=f"model: N = {row['matrix_rows']:,}, d = {row['nonzeros_per_row']}",
        line={"color": COLOURS[0]}, marker={"size": 5},
        hovertemplate="%{x} nodes: %{y:.3g}x<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=[row["nodes"]], y=[row["speedup"]], mode="markers",
        name="published: largest gain",
        marker={"color": COLOURS[0], "size": 12, "symbol": "circle-open",
                "line": {"width": 2}},
        error_y={"type": "constant", "value": fig9.TOLERANCE},
        hovertemplate="published %{y:.3g}x at %{x} nodes<extra></extra>"))
    return fig


def angara_fig10() -> go.Figure:
    """Angara collectives paper (Mukosey 2015) Fig. 10: heat-equation step time with the
    point-to-point all-reduce over the hardware all-reduce vs node count on a 4D torus, one
    curve per grid (model: validation.claims.angara_heat.ratio over its SWEEP; points: the
    bundled table angara-heat-fig10)."""
    from icnperf.data.measurements.tables import load_table
    from icnperf.validation.claims import angara_heat as fig10

    rows = load_table(fig10.TABLE).rows()
    grids = list(dict.fromkeys(r["grid_cells"] for r in rows))
    fig = figure("Angara collectives paper, Fig. 10 redrawn: heat step time, p2p-tree"
                 " all-reduce / hw-tree all-reduce (4D torus)", "nodes",
                 "step time ratio (x)", x_log=True, y_log=False)
    for i, cells in enumerate(grids):
        colour = COLOURS[i % len(COLOURS)]
        fig.add_trace(go.Scatter(
            x=list(fig10.SWEEP), y=[fig10.ratio(n, cells) for n in fig10.SWEEP],
            mode="lines+markers", name=f"model: {cells:,} cells",
            line={"color": colour}, marker={"size": 5},
            hovertemplate="%{x} nodes: %{y:.3g}x<extra></extra>"))
        points = [r for r in rows if r["grid_cells"] == cells and r["relation"] != "onset"]
        if points:
            fig.add_trace(go.Scatter(
                x=[r["nodes"] for r in points], y=[r["speedup"] for r in points],
                mode="markers", name=f"published: {cells:,} cells",
                marker={"color": colour, "size": 12, "symbol": "circle-open",
                        "line": {"width": 2}},
                hovertemplate="published %{y:.3g}x at %{x} nodes<extra></extra>"))
    return fig


REDRAWS = (("angara-fig7-", angara_fig7), ("angara-fig9-", angara_fig9),
           ("angara-fig10-", angara_fig10))
"""(claim id prefix, figure builder): a figure is drawn when a group has such claims."""


def figures_for(results: list[dict]) -> list[go.Figure]:
    """The redrawn paper figures that illustrate some of these claim results."""
    ids = [r["id"] for r in results]
    return [build() for prefix, build in REDRAWS if any(i.startswith(prefix) for i in ids)]
