"""``icnperf size``: the procurement sizing study."""

from __future__ import annotations

import click

from icnperf.cli.common import FORMAT_OPTION, FORCE_OPTION, Count, emit, no_format_for_html


@click.command()
@click.option("--endpoints", type=Count(), required=True,
              help="Endpoints the machine must reach (e.g. 100000 or 1e5).")
@click.option("--families", default=None,
              help="Comma-separated families [default: torus,fattree,clos,dragonfly,megafly,"
                   "slimfly].")
@click.option("--torus-dims", default="3,6", show_default=True,
              help="Comma-separated torus dimension counts.")
@click.option("--radix-max", type=Count(), default=128, show_default=True,
              help="Most ports per router.")
@click.option("--cost", "cost_path", default=None, metavar="FILE",
              help="Cost model TOML [default: the bundled illustrative prices].")
@click.option("--workload", "workload_path", default=None, metavar="FILE",
              help="Workload TOML [default: the bundled capability mix].")
@click.option("--machine", "machine_name", default=None, metavar="NAME|FILE",
              help="Network, node and software parameters [default: angara-3d].")
@click.option("--slack", type=click.FloatRange(min=1.0, max=100.0), default=1.5,
              show_default=True,
              help="Screen designs of up to SLACK x the endpoints.")
@click.option("--shortlist", type=click.IntRange(min=1), default=24, show_default=True,
              help="Most designs the full workload model ranks (proxy front + NUDT rule).")
@FORMAT_OPTION
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write to FILE (atomically); FILE.html writes an HTML study.")
@FORCE_OPTION
def size(endpoints: int, families: str | None, torus_dims: str, radix_max: int,
         cost_path: str | None, workload_path: str | None, machine_name: str | None,
         slack: float, shortlist: int, fmt: str, output: str | None, force: bool) -> None:
    """Procurement sizing: every feasible design per family for N endpoints screened by a
    closed-form proxy; the short list costed, timed by the workload model and ranked, with
    the cost-performance Pareto front."""
    from icnperf.reports.text import size as sizing

    args = (endpoints, families, torus_dims, radix_max, cost_path, workload_path,
            machine_name)
    if output is not None and output.lower().endswith((".html", ".htm")):
        no_format_for_html(fmt, output)
        sizing.write_study_html(output, *args, slack, shortlist, force=force)
        click.echo(f"wrote {output}", err=True)
        return
    emit(sizing.study_text(*args, fmt, slack, shortlist), output, force)
