"""``icnperf size``: the procurement sizing study."""

from __future__ import annotations

import click

from icnperf.api.options import MAX_RADIX
from icnperf.cli.common import FORMAT_OPTION, FORCE_OPTION, Count, emit, no_format_for_html


@click.command()
@click.option("--endpoints", type=Count(), required=True,
              help="Endpoints the machine must reach (e.g. 100000 or 1e5).")
@click.option("--families", default=None,
              help="Comma-separated families [default: torus,fattree,clos,xgft,dragonfly,"
                   "megafly,slimfly]; xgft: one-radix trees of 2 and 3 levels, top level "
                   "tapered 1:1, 2:1, 3:1 or 4:1; rail (GPU machines): rail-optimised and "
                   "plain trees of NICs, per NICs per node and taper.")
@click.option("--torus-dims", default="3,6", show_default=True,
              help="Comma-separated torus dimension counts.")
@click.option("--radix-max", type=Count(), default=128, show_default=True,
              help=f"Most ports per router (2..{MAX_RADIX}).")
@click.option("--cost", "cost_path", default=None, metavar="FILE",
              help="Cost model TOML [default: the bundled illustrative prices].")
@click.option("--workload", "workload_path", default=None, metavar="FILE",
              help="Workload TOML [default: the bundled capability mix].")
@click.option("--app-file", "app_files", multiple=True, metavar="FILE",
              help="A skeleton file the workload names outside its own folder, allowed for"
                   " this run (repeatable; FILE from here, the workload's app path from its"
                   " folder: both must reach the same file).")
@click.option("--machine", "machine_name", default=None, metavar="NAME|FILE",
              help="Network, node and software parameters [default: angara-3d].")
@click.option("--slack", type=click.FloatRange(min=1.0, max=100.0), default=1.5,
              show_default=True,
              help="Screen designs of up to SLACK x the endpoints.")
@click.option("--shortlist", default="safe", show_default=True, metavar="safe|all|N",
              help="Designs the full workload model evaluates: safe = only those the screen"
                   " cannot prove off the Pareto front; all = every design; N = safe, topped"
                   " up to N in proxy order.")
@click.option("--scheduler", default="inline", show_default=True,
              help="Where the full-model evaluations run: inline, processes, local-cluster"
                   " or tcp://host:port (Dask: pip install 'icnperf[dask]').")
@click.option("--workers", type=Count(), default=None,
              help="Processes for processes / local-cluster [default: CPU count].")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on standard error [default: when it is a terminal].")
@click.option("--wide", is_flag=True,
              help="Every column, notes inline (wider than 100 columns).")
@FORMAT_OPTION
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write to FILE (atomically); FILE.html writes an HTML study.")
@FORCE_OPTION
def size(endpoints: int, families: str | None, torus_dims: str, radix_max: int,
         cost_path: str | None, workload_path: str | None, app_files: tuple,
         machine_name: str | None, slack: float, shortlist: str, scheduler: str,
         workers: int | None, progress: bool | None, wide: bool, fmt: str,
         output: str | None, force: bool) -> None:
    """Procurement sizing: every feasible design per family for N endpoints costed and
    bounded from below by a proxy; the full workload model evaluates the designs that could
    be on the cost-performance Pareto front, ranks them and marks the front."""
    from icnperf.api import size as study

    run = dict(endpoints=endpoints, families=families, torus_dims=torus_dims,
               radix_max=radix_max, cost=cost_path, workload=workload_path,
               machine=machine_name, slack=slack, shortlist=shortlist, scheduler=scheduler,
               workers=workers, progress=progress, app_files=app_files)
    if output is not None and output.lower().endswith((".html", ".htm")):
        from icnperf.data.files import check_target, write_atomically

        no_format_for_html(fmt, output)
        check_target(output, force)
        write_atomically(output, study(**run, budget_format=fmt).html(), force=force,
                         html=True)
        click.echo(f"wrote {output}", err=True)
        return
    emit(study(**run, budget_format=fmt).render(fmt, wide), output, force)
