"""``icnperf topology`` and ``icnperf compare-topologies``."""

from __future__ import annotations

import click

from icnperf.api.options import TREE_ROUTINGS
from icnperf.cli.common import (FORMAT_OPTION, OUTPUT_OPTION, FORCE_OPTION, SET_OPTION,
                                WIDE_OPTION, Count, emit)


class FamilyListingCommand(click.Command):
    """A command whose help ends with the registered topology families (read on demand)."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help_text(ctx, formatter)
        from icnperf.model.topology.spec import FAMILIES

        with formatter.section("Topology families"):
            formatter.write_dl([(f.example, f"{f.description} (parameters: "
                                 f"{', '.join(f.parameters)})") for f in FAMILIES.values()])


@click.command(cls=FamilyListingCommand)
@click.argument("spec")
@click.option("--tree-routing", type=click.Choice(TREE_ROUTINGS), default=None,
              help="Up-port rule of a fat tree (fattree, clos, xgft) [default: random].")
@click.option("--machine", "machine_name", default=None, metavar="NAME|FILE",
              help="Routers of this machine (VCs, buffers, allocator, speedup) for the"
                   " saturation estimate [default: the simulator's default router].")
@SET_OPTION
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
@WIDE_OPTION
def topology(spec: str, tree_routing: str | None, machine_name: str | None,
             overrides: tuple[str, ...], fmt: str, output: str | None, force: bool,
             wide: bool) -> None:
    """Structural metrics, channel loads, throughput bound and saturation estimate of one
    topology SPEC (FAMILY:PARAMETERS)."""
    from icnperf.api import topology as metrics

    result = metrics(spec, tree_routing=tree_routing, machine=machine_name, set=overrides)
    emit(result.render(fmt, wide), output, force)


@click.command("compare-topologies")
@click.option("--endpoints", type=Count(), default=None,
              help="Target endpoint count N (e.g. 100000 or 1e5).")
@click.option("--radix", default=None, metavar="R[,R...]",
              help="Instead of --endpoints: the largest design within each router radix R.")
@click.option("--families", default=None,
              help="Comma-separated families to size [default: all that apply].")
@click.option("--torus-dims", default="3,6", show_default=True,
              help="Comma-separated torus dimension counts.")
@click.option("--levels", type=Count(), default=3, show_default=True, help="Fat-tree levels.")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
@WIDE_OPTION
def compare_topologies(endpoints: int | None, radix: str | None, families: str | None,
                       torus_dims: str, levels: int, fmt: str, output: str | None,
                       force: bool, wide: bool) -> None:
    """Size every family for N endpoints, or within a router radix (NUDT Fig. 5)."""
    from icnperf.api import compare_topologies as compare

    result = compare(endpoints=endpoints, radix=radix, families=families,
                     torus_dims=torus_dims, levels=levels, budget_format=fmt)
    emit(result.render(fmt, wide), output, force)
