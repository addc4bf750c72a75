"""``icnperf explain`` and ``icnperf crossover``: formulas, elasticities, crossovers."""

from __future__ import annotations

import click

from icnperf.api.options import APIS, CCL_APIS, VARY
from icnperf.cli.common import (FORMAT_OPTION, OUTPUT_OPTION, FORCE_OPTION, MACHINE_OPTION,
                                SET_OPTION, WIDE_OPTION, Count, emit)


@click.group("explain")
def explain() -> None:
    """Show a model's formula, its value and which parameter matters most (SymPy)."""


@explain.command("collective")
@click.argument("operation")
@click.option("--algorithm", default=None, metavar="ALG",
              help="hw-tree, p2p-tree, binomial, recursive-doubling, ring, rabenseifner or"
                   " bruck; auto: the one the machine's MPI library picks (required but with"
                   " --api nccl|rccl, which shows every algorithm).")
@MACHINE_OPTION
@click.option("--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE",
              help="Override a parameter, e.g. network.link_latency=60ns (repeatable).")
@click.option("--nodes", type=Count(), default=None,
              help="N nodes: the machine's torus reshaped (balanced radices, same dimension"
                   " count, fewer below 2^dims nodes), or a job of N nodes on a fat tree or"
                   " dragonfly as it is.")
@click.option("--shape", default=None, metavar="AxBxC",
              help="Torus radices to use, e.g. 16x16x32 (must multiply to --nodes).")
@click.option("--bytes", "bytes_text", default=None, metavar="SIZE",
              help="Message size [default: 256B, one full Angara packet]; bare numbers are"
                   " bytes.")
@click.option("--api", type=click.Choice(APIS + CCL_APIS),
              default="mpi", show_default=True,
              help="Software overhead charged; none = hardware only; nccl, rccl: every"
                   " algorithm of the GPU collective library in closed form.")
@click.option("--ppn", "processes_per_node", type=click.IntRange(min=1), default=None,
              help="With --api nccl|rccl: GPUs per node [default: node.accelerators].")
@click.option("--latex", is_flag=True, help="Print the formula as LaTeX.")
@click.option("--all-symbols", is_flag=True,
              help="Keep the packet format (f, P, H), switching flags (s, s_c) and tree"
                   " count N_t as symbols instead of substituting them.")
@click.option("--uncertainty", is_flag=True,
              help="Add each input's stated spread and its share of the prediction's range"
                   " (|elasticity| x spread; docs/machine-format.md, 'Uncertainty').")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
@WIDE_OPTION
def explain_collective(operation: str, algorithm: str, machine_name: str,
                       overrides: tuple[str, ...], nodes: int | None, shape: str | None,
                       bytes_text: str | None, api: str, processes_per_node: int | None,
                       latex: bool, all_symbols: bool, uncertainty: bool, fmt: str,
                       output: str | None, force: bool, wide: bool) -> None:
    """The closed form of collective OPERATION by one algorithm, its value and the
    elasticity of every parameter (dT/dx * x/T: which knob matters most)."""
    from icnperf.api import explain_collective as explained

    result = explained(machine_name, operation, algorithm=algorithm, set=overrides,
                       nodes=nodes, shape=shape, bytes=bytes_text, api=api,
                       ppn=processes_per_node, latex=latex, all_symbols=all_symbols,
                       uncertainty=uncertainty)
    emit(result.render(fmt, wide), output, force)


@explain.command("saturation")
@click.argument("spec")
@click.option("--traffic", default="uniform", show_default=True,
              help="uniform, tornado, bit-complement, transpose, nearest-neighbour or"
                   " worst-case.")
@click.option("--machine", "machine_name", default=None, metavar="NAME|FILE",
              help="Routers of this machine [default: the simulator's default router].")
@SET_OPTION
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
@WIDE_OPTION
def explain_saturation(spec: str, traffic: str, machine_name: str | None,
                       overrides: tuple[str, ...], fmt: str, output: str | None, force: bool,
                       wide: bool) -> None:
    """Every factor of the saturation estimate of topology SPEC: its value, formula and
    source (allocator matching, head-of-line blocking, VC classes, credits, speedup)."""
    from icnperf.api import explain_saturation as explained

    result = explained(spec, traffic=traffic, machine=machine_name, set=overrides)
    emit(result.render(fmt, wide), output, force)


@explain.command("app")
@click.argument("app", metavar="FILE.toml|NAME")
@MACHINE_OPTION
@SET_OPTION
@click.option("--nodes", type=Count(), default=None,
              help="The node count (the torus reshaped as in predict app) [default: the"
                   " machine's].")
@click.option("--shape", default=None, metavar="AxBxC", help="Fix the torus shape.")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="Set a skeleton parameter, e.g. n=2048 (repeatable).")
@click.option("--algorithm", default=None, metavar="ALG",
              help="Algorithm of every collective phase [default: each phase's own].")
@click.option("--ppn", "processes_per_node", type=click.IntRange(min=1), default=None,
              help="Processes per node [default: the skeleton's, else the machine's].")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
@WIDE_OPTION
def explain_app(app: str, machine_name: str, overrides: tuple[str, ...], nodes: int | None,
                shape: str | None, params: tuple[str, ...], algorithm: str | None,
                processes_per_node: int | None, fmt: str, output: str | None,
                force: bool, wide: bool) -> None:
    """Each phase of an application skeleton in closed form at one node count: the count and
    compute terms as formulas of P and the parameters, the communication with the hops and
    channel loads it takes there."""
    from icnperf.api import explain_app as explained

    result = explained(machine_name, app, set=overrides, nodes=nodes, shape=shape,
                       param=params, algorithm=algorithm, ppn=processes_per_node,
                       budget_format=fmt)
    emit(result.render(fmt, wide), output, force)


@click.group("crossover")
def crossover() -> None:
    """Solve for where one algorithm overtakes another by a factor."""


@crossover.command("collective")
@click.argument("operation")
@MACHINE_OPTION
@click.option("--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE",
              help="Override a parameter, e.g. network.link_latency=60ns (repeatable).")
@click.option("--faster", required=True, metavar="ALG",
              help="The algorithm expected to win (e.g. hw-tree).")
@click.option("--slower", required=True, metavar="ALG",
              help="The algorithm it is compared with (e.g. p2p-tree).")
@click.option("--factor", "factor_text", required=True, metavar="X",
              help="Find where T_slower / T_faster >= X (X > 1).")
@click.option("--vary", type=click.Choice(VARY), default="nodes",
              show_default=True, help="Solve for the node count or the message size.")
@click.option("--dims", type=click.IntRange(min=1), default=None,
              help="Torus dimensions when varying nodes [default: the machine's].")
@click.option("--range", "range_text", default=None, metavar="RANGE",
              help="Values to scan: nodes [default: 2^dims..32768:x2] or sizes [default:"
                   " 1..64MiB:x2].")
@click.option("--bytes", "bytes_text", default=None, metavar="SIZE",
              help="Message size when varying nodes [default: 256B].")
@click.option("--nodes", type=Count(), default=None,
              help="When varying bytes: reshape the torus to N nodes.")
@click.option("--shape", default=None, metavar="AxBxC",
              help="When varying bytes: the torus radices, e.g. 16x16x32.")
@click.option("--any-shape", is_flag=True,
              help="Refine over every node count, not only those whose balanced shape has"
                   " largest radix <= 2 x smallest.")
@click.option("--api", type=click.Choice(APIS), default="mpi",
              show_default=True, help="Software overhead charged; none = hardware only.")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
@WIDE_OPTION
def crossover_collective(operation: str, machine_name: str, overrides: tuple[str, ...],
                         faster: str, slower: str, factor_text: str, vary: str,
                         dims: int | None, range_text: str | None, bytes_text: str | None,
                         nodes: int | None, shape: str | None, any_shape: bool, api: str,
                         fmt: str, output: str | None, force: bool, wide: bool) -> None:
    """The smallest node count or message size at which collective OPERATION by --faster
    is --factor times faster than by --slower."""
    from icnperf.api import crossover as solved

    result = solved(machine_name, operation, faster=faster, slower=slower, factor=factor_text,
                    set=overrides, vary=vary, dims=dims, range=range_text, bytes=bytes_text,
                    nodes=nodes, shape=shape, any_shape=any_shape, api=api,
                    budget_format=fmt)
    emit(result.render(fmt, wide), output, force)
