"""The ``icnperf`` command line: parse, call the model or validation, print. Nothing else.

Heavy modules (the model, NumPy) are imported inside the commands that need them, so
``icnperf --help`` starts fast. Every ``IcnperfError`` becomes a one-line message and exit
status 2 here, and only here.
"""

from __future__ import annotations

import sys

import click

from icnperf import __version__
from icnperf.errors import IcnperfError

FORMAT_OPTION = click.option(
    "--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
    show_default=True, help="Output format; JSON and CSV carry SI units.")
OUTPUT_OPTION = click.option(
    "-o", "--output", type=click.Path(dir_okay=False), default=None,
    help="Write to FILE instead of standard output (written atomically).")
FORCE_OPTION = click.option("--force", is_flag=True, help="Overwrite an existing -o FILE.")


class Count(click.ParamType):
    """A whole number as units.py reads counts ("100000", "1e5")."""

    name = "count"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        from icnperf.units import parse_quantity

        try:
            return int(parse_quantity(value, "count"))
        except IcnperfError as error:
            self.fail(str(error), param, ctx)


class BadInput(click.ClickException):
    """A user error shown as one line, exit status 2."""

    exit_code = 2

    def show(self, file=None) -> None:
        click.echo(f"icnperf: error: {self.format_message()}", err=True, file=file)


class IcnperfGroup(click.Group):
    """The command group: IcnperfError and Click's usage errors become one line, status 2."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except IcnperfError as error:
            raise BadInput(str(error)) from None

    def main(self, *args, **kwargs):
        kwargs.pop("standalone_mode", None)
        try:
            return super().main(*args, standalone_mode=False, **kwargs)
        except click.UsageError as error:
            where = error.ctx.command_path if error.ctx else "icnperf"
            click.echo(f"{where}: error: {error.format_message()}", err=True)
            sys.exit(2)
        except click.ClickException as error:
            error.show()
            sys.exit(error.exit_code)
        except click.Abort:
            click.echo("icnperf: aborted", err=True)
            sys.exit(1)


def _no_format_for_html(fmt: str, output: str) -> None:
    """An .html output is always a page: a --format other than the default is a mistake."""
    if fmt != "table":
        raise click.UsageError(f"--format {fmt} does not apply to an HTML page ({output});"
                               " drop --format or write another file type")


def emit(text: str, output: str | None, force: bool) -> None:
    """Print text, or write it atomically to ``output``."""
    if output is None:
        click.echo(text, nl=not text.endswith("\n"))
        return
    from icnperf.render import write_atomically

    write_atomically(output, text, force=force)
    click.echo(f"wrote {output}", err=True)


@click.group(cls=IcnperfGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="icnperf")
def cli() -> None:
    """Closed-form performance models of HPC interconnects and their applications."""


class FamilyListingCommand(click.Command):
    """A command whose help ends with the registered topology families (read on demand)."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help_text(ctx, formatter)
        from icnperf.model.topology.spec import FAMILIES

        with formatter.section("Topology families"):
            formatter.write_dl([(f.example, f"{f.description} (parameters: "
                                 f"{', '.join(f.parameters)})") for f in FAMILIES.values()])


@cli.command(cls=FamilyListingCommand)
@click.argument("spec")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
def topology(spec: str, fmt: str, output: str | None, force: bool) -> None:
    """Structural metrics and channel loads of one topology SPEC (FAMILY:PARAMETERS)."""
    from icnperf.commands.topology import topology_text

    emit(topology_text(spec, fmt), output, force)


@cli.command("compare-topologies")
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
def compare_topologies(endpoints: int | None, radix: str | None, families: str | None,
                       torus_dims: str, levels: int, fmt: str, output: str | None,
                       force: bool) -> None:
    """Size every family for N endpoints, or within a router radix (NUDT Fig. 5)."""
    from icnperf.commands.topology import compare_text

    emit(compare_text(endpoints, radix, families, torus_dims, levels, fmt), output, force)


@cli.command()
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
    from icnperf.commands import size as sizing

    args = (endpoints, families, torus_dims, radix_max, cost_path, workload_path,
            machine_name)
    if output is not None and output.lower().endswith((".html", ".htm")):
        _no_format_for_html(fmt, output)
        sizing.write_study_html(output, *args, slack, shortlist, force=force)
        click.echo(f"wrote {output}", err=True)
        return
    emit(sizing.study_text(*args, fmt, slack, shortlist), output, force)


@cli.command()
@FORMAT_OPTION
def machines(fmt: str) -> None:
    """List the bundled machine presets."""
    from icnperf.commands.machines import presets_text

    click.echo(presets_text(fmt), nl=False)


@cli.command()
@click.argument("name")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE",
              help="Override a parameter, e.g. network.link_latency=60ns (repeatable).")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
def machine(name: str, overrides: tuple[str, ...], fmt: str, output: str | None,
            force: bool) -> None:
    """Show one machine (preset NAME or TOML file) with units and sources."""
    from icnperf.commands.machines import machine_text

    emit(machine_text(name, overrides, fmt), output, force)


@cli.group()
def predict() -> None:
    """What-if predictions on a machine (messages, collectives, applications)."""


@predict.command()
@click.option("--machine", "machine_name", required=True, metavar="NAME|FILE",
              help="A bundled preset (icnperf machines) or a machine TOML file.")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE",
              help="Override a parameter, e.g. network.link_latency=60ns (repeatable).")
@click.option("--bytes", "sizes", default="8..1MiB:x4", show_default=True,
              help="Message sizes: a range (8..1MiB:x2), a list (8,64,512) or one size;"
                   " bare numbers are bytes.")
@click.option("--hops", type=click.FloatRange(min=0), default=None,
              help="Router-to-router hops [default: the topology's average distance].")
@click.option("--from", "source", default=None, metavar="ENDPOINT",
              help="Source endpoint on a torus/mesh/hypercube: index or coordinates 1,0,2.")
@click.option("--to", "destination", default=None, metavar="ENDPOINT",
              help="Destination endpoint (with --from); hops follow dimension-order routing.")
@click.option("--api", type=click.Choice(["mpi", "shmem", "none"]), default="mpi",
              show_default=True, help="Software overhead charged; none = hardware only.")
@click.option("--ppn", "processes_per_node", type=click.IntRange(min=1), default=1,
              show_default=True, help="Processes per node sending at once through one adapter.")
@click.option("--load", "offered_load", type=click.FloatRange(min=0, max=1), default=0.0,
              show_default=True,
              help="Background load, flits/endpoint/cycle as a fraction of a channel: charges"
                   " M/D/1 queueing on every hop (0 = empty network).")
@click.option("--pattern", default="uniform", show_default=True,
              help="Traffic pattern of the background load (its channel load gamma_max).")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
def p2p(machine_name: str, overrides: tuple[str, ...], sizes: str, hops: float | None,
        source: str | None, destination: str | None, api: str, processes_per_node: int,
        offered_load: float, pattern: str, fmt: str, output: str | None,
        force: bool) -> None:
    """Latency, bandwidth and message rate of one message per size."""
    from icnperf.commands.predict import p2p_text

    emit(p2p_text(machine_name, overrides, sizes, hops, source, destination, api,
                  processes_per_node, fmt, offered_load, pattern), output, force)


@predict.command()
@click.argument("operation")
@click.option("--machine", "machine_name", required=True, metavar="NAME|FILE",
              help="A bundled preset (icnperf machines) or a machine TOML file.")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE",
              help="Override a parameter (repeatable).")
@click.option("--nodes", default=None, metavar="RANGE",
              help="Node counts (8..32768:x2); the torus keeps its dimension count and takes"
                   " the most balanced radices [default: the machine's own shape].")
@click.option("--shape", default=None, metavar="AxBxC", help="Fix the torus shape.")
@click.option("--bytes", "sizes", default="256B", show_default=True,
              help="Data per rank: a range, a list or one size; bare numbers are bytes.")
@click.option("--algorithm", default="all", show_default=True,
              help="all, hw-tree, p2p-tree, binomial, recursive-doubling, ring, rabenseifner"
                   " or bruck.")
@click.option("--api", type=click.Choice(["mpi", "shmem", "none"]), default="mpi",
              show_default=True, help="Software overhead per message and per hardware call.")
@click.option("--ppn", "processes_per_node", type=click.IntRange(min=1), default=1,
              show_default=True,
              help="Processes per node: ranks r..r+ppn-1 share a node (point-to-point"
                   " algorithms; the trees need 1).")
@click.option("--placement", type=click.Choice(["linear", "random"]), default="linear",
              show_default=True,
              help="Nodes on endpoints: in order, or a random permutation (seed 0).")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
def collective(operation: str, machine_name: str, overrides: tuple[str, ...],
               nodes: str | None, shape: str | None, sizes: str, algorithm: str, api: str,
               processes_per_node: int, placement: str, fmt: str, output: str | None,
               force: bool) -> None:
    """Time of a collective OPERATION (broadcast, reduce, allreduce, allgather, alltoall,
    barrier) per node count, size and algorithm, on the machine's torus, fat tree or
    dragonfly."""
    from icnperf.commands.predict import collective_text

    emit(collective_text(operation, machine_name, overrides, nodes, shape, sizes, algorithm,
                         api, fmt, processes_per_node, placement), output, force)


@predict.command()
@click.argument("app")
@click.option("--machine", "machine_name", required=True, metavar="NAME|FILE",
              help="A bundled preset (icnperf machines) or a machine TOML file.")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE",
              help="Override a parameter (repeatable).")
@click.option("--nodes", default=None, metavar="RANGE",
              help="Node counts; the torus is reshaped as in predict collective.")
@click.option("--shape", default=None, metavar="AxBxC", help="Fix the torus shape.")
@click.option("--algorithm", default="all", show_default=True,
              help="Collective algorithm (hw-tree, recursive-doubling, p2p-tree, ...) or all.")
@click.option("--rows", type=Count(), default=None, help="spmv: matrix rows N.")
@click.option("--nnz-per-row", "nonzeros_per_row", type=Count(), default=None,
              help="spmv: non-zeros per row d.")
@click.option("--cells", type=Count(), default=None, help="heat: grid cells.")
@click.option("--steps", type=Count(), default=None, help="heat: time steps.")
@click.option("--iterations", type=Count(), default=None, help="spmv, hpcg: iterations.")
@click.option("--local", default=None, metavar="NXxNYxNZ", help="hpcg: local domain.")
@click.option("--variant", type=click.Choice(["reference", "optimized"]), default=None,
              help="hpcg: reference 2.4 (MPI) or optimized (SHMEM, node factors).")
@click.option("--ppn", "processes_per_node", type=click.IntRange(min=1), default=None,
              help="hpcg, npb-is: processes per node.")
@click.option("--class", "klass", default=None, help="npb-is: problem class (S..D).")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
def app(app: str, machine_name: str, overrides: tuple[str, ...], nodes: str | None,
        shape: str | None, algorithm: str, fmt: str, output: str | None, force: bool,
        **problem) -> None:
    """Time, GFLOP/s, efficiency and hardware gain of APP (spmv, heat, hpcg, npb-is)."""
    from icnperf.commands.apps import app_text

    emit(app_text(app, machine_name, overrides, nodes, shape, algorithm, problem, fmt),
         output, force)


@cli.command()
@click.option("--app", "app_name", type=click.Choice(["npb-is"]), required=True,
              help="The application whose placements to rank.")
@click.option("--class", "klass", default="C", show_default=True, help="Problem class.")
@click.option("--procs", type=click.IntRange(min=1), required=True, help="Process count.")
@click.option("--machine", "machine_name", required=True, metavar="NAME|FILE",
              help="A machine with bundled NPB IS measurements (ib-qdr-cluster, gige-cluster).")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE",
              help="Override a parameter (repeatable).")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
def place(app_name: str, klass: str, procs: int, machine_name: str,
          overrides: tuple[str, ...], fmt: str, output: str | None, force: bool) -> None:
    """Rank the placements (nodes x processes per node) of a job by predicted time."""
    from icnperf.commands.apps import placement_text
    from icnperf.machine import load_machine

    machine = load_machine(machine_name).with_overrides(list(overrides))
    emit(placement_text(machine, klass, procs, fmt), output, force)


@cli.command()
@click.option("--machine", "machine_name", required=True, metavar="NAME|FILE",
              help="The machine to start from (preset or TOML file).")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE",
              help="Override a parameter before fitting (repeatable).")
@click.option("--data", required=True, metavar="FILE|TABLE",
              help="OSU or IMB output, a measurement CSV, or a bundled table name.")
@click.option("--data-format", type=click.Choice(["osu", "imb", "csv"]), default=None,
              help="Format of --data [default: detected from its content].")
@click.option("--fit", default="software.mpi_overhead,network.link_bandwidth",
              show_default=True,
              help="Comma-separated machine keys to fit; LogGP names o, g, G, L accepted.")
@click.option("--api", type=click.Choice(["mpi", "shmem"]), default="mpi", show_default=True,
              help="Interface of points that do not name theirs (and of o, g).")
@click.option("--hops", type=click.FloatRange(min=0), default=None,
              help="Router hops of points that do not say [default: 1, neighbours].")
@FORMAT_OPTION
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the calibrated machine as TOML (usable with --machine).")
@FORCE_OPTION
def calibrate(machine_name: str, overrides: tuple[str, ...], data: str,
              data_format: str | None, fit: str, api: str, hops: float | None, fmt: str,
              output: str | None, force: bool) -> None:
    """Fit machine parameters to measured latencies or bandwidths (least squares)."""
    from icnperf.commands.calibrate import calibrate_text

    click.echo(calibrate_text(machine_name, overrides, data, data_format, fit, api, hops,
                              fmt, output, force), nl=False)


@cli.command()
@click.option("--skip-simulation", is_flag=True,
              help="Leave out the flit simulator's cross-checks (the slowest part).")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
def validate(skip_simulation: bool, fmt: str, output: str | None, force: bool) -> None:
    """Check every registered published claim and the flit simulator's cross-checks; exit 1
    if any check fails. With -o FILE.html the results are an HTML page (plots, error
    table, simulator cross-checks)."""
    from icnperf.render import is_html_path

    if is_html_path(output):
        from icnperf.commands.validate import write_validation_page

        _no_format_for_html(fmt, output)
        failed = write_validation_page(output, force, skip_simulation)
        click.echo(f"wrote {output}", err=True)
    else:
        from icnperf.commands.validate import validation_text

        text, failed = validation_text(fmt, skip_simulation)
        emit(text, output, force)
    if failed:
        sys.exit(1)


@cli.command()
@click.option("--machine", "machine_name", required=True, metavar="NAME|FILE",
              help="A bundled preset (icnperf machines) or a machine TOML file.")
@click.option("--compare", multiple=True, metavar="NAME|FILE",
              help="Another machine to overlay on the same figures (repeatable).")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE",
              help="Override a parameter of --machine (repeatable).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True,
              help="The HTML file to write (atomically).")
@FORCE_OPTION
@click.option("--no-validation", is_flag=True,
              help="Leave out the validation section (about a second of checks).")
def report(machine_name: str, compare: tuple[str, ...], overrides: tuple[str, ...],
           output: str, force: bool, no_validation: bool) -> None:
    """A self-contained HTML report of a machine: parameters, topology, point-to-point,
    collectives, applications, validation and formulas (opens offline)."""
    from icnperf.commands.report import write_report

    write_report(machine_name, compare, overrides, output, force,
                 validation=not no_validation)
    click.echo(f"wrote {output}", err=True)


@cli.group("explain")
def explain() -> None:
    """Show a model's formula, its value and which parameter matters most (SymPy)."""


@explain.command("collective")
@click.argument("operation")
@click.option("--algorithm", required=True, metavar="ALG",
              help="hw-tree, p2p-tree, binomial, recursive-doubling, ring, rabenseifner or"
                   " bruck.")
@click.option("--machine", "machine_name", required=True, metavar="NAME|FILE",
              help="A bundled preset (icnperf machines) or a machine TOML file.")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE",
              help="Override a parameter, e.g. network.link_latency=60ns (repeatable).")
@click.option("--nodes", type=Count(), default=None,
              help="Reshape the machine's torus to N nodes (balanced radices, same"
                   " dimension count).")
@click.option("--shape", default=None, metavar="AxBxC",
              help="Torus radices to use, e.g. 16x16x32 (must multiply to --nodes).")
@click.option("--bytes", "bytes_text", default=None, metavar="SIZE",
              help="Message size [default: 256B, one full Angara packet]; bare numbers are"
                   " bytes.")
@click.option("--api", type=click.Choice(["mpi", "shmem", "none"]), default="mpi",
              show_default=True, help="Software overhead charged; none = hardware only.")
@click.option("--latex", is_flag=True, help="Print the formula as LaTeX.")
@click.option("--all-symbols", is_flag=True,
              help="Keep the packet format (f, P, H), switching flags (s, s_c) and tree"
                   " count N_t as symbols instead of substituting them.")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
def explain_collective(operation: str, algorithm: str, machine_name: str,
                       overrides: tuple[str, ...], nodes: int | None, shape: str | None,
                       bytes_text: str | None, api: str, latex: bool, all_symbols: bool,
                       fmt: str, output: str | None, force: bool) -> None:
    """The closed form of collective OPERATION by one algorithm, its value and the
    elasticity of every parameter (dT/dx * x/T: which knob matters most)."""
    from icnperf.commands.explain import explain_text

    emit(explain_text("collective", operation, algorithm, machine_name, overrides, nodes,
                      shape, bytes_text, latex, fmt, api=api, all_symbols=all_symbols),
         output, force)


@cli.group("crossover")
def crossover() -> None:
    """Solve for where one algorithm overtakes another by a factor."""


@crossover.command("collective")
@click.argument("operation")
@click.option("--machine", "machine_name", required=True, metavar="NAME|FILE",
              help="A bundled preset (icnperf machines) or a machine TOML file.")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE",
              help="Override a parameter, e.g. network.link_latency=60ns (repeatable).")
@click.option("--faster", required=True, metavar="ALG",
              help="The algorithm expected to win (e.g. hw-tree).")
@click.option("--slower", required=True, metavar="ALG",
              help="The algorithm it is compared with (e.g. p2p-tree).")
@click.option("--factor", "factor_text", required=True, metavar="X",
              help="Find where T_slower / T_faster >= X (X > 1).")
@click.option("--vary", type=click.Choice(["nodes", "bytes"]), default="nodes",
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
@click.option("--api", type=click.Choice(["mpi", "shmem", "none"]), default="mpi",
              show_default=True, help="Software overhead charged; none = hardware only.")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
def crossover_collective(operation: str, machine_name: str, overrides: tuple[str, ...],
                         faster: str, slower: str, factor_text: str, vary: str,
                         dims: int | None, range_text: str | None, bytes_text: str | None,
                         nodes: int | None, shape: str | None, any_shape: bool, api: str,
                         fmt: str, output: str | None, force: bool) -> None:
    """The smallest node count or message size at which collective OPERATION by --faster
    is --factor times faster than by --slower."""
    from icnperf.commands.explain import crossover_text

    emit(crossover_text("collective", operation, machine_name, overrides, faster, slower,
                        factor_text, vary, dims, range_text, bytes_text, nodes, shape, fmt,
                        api=api, any_shape=any_shape), output, force)


@cli.group("simulate")
def simulate() -> None:
    """The embedded flit-level simulator next to the closed-form predictions."""


@simulate.command("traffic")
@click.option("--topology", required=True, metavar="SPEC",
              help="torus:8x8, mesh:4x4, hypercube:6, fattree:k=4,n=3,"
                   " dragonfly:p=2,a=4,h=2 or slimfly:q=5.")
@click.option("--routing", default=None, metavar="NAME",
              help="dor (grids); nca or nca-first (fat tree); min, valiant or ugal"
                   " (dragonfly); min (slim fly) [default: the first].")
@click.option("--traffic", default="uniform", show_default=True,
              help="uniform, tornado, bit-complement, permutation (random, seeded),"
                   " transpose, asymmetric or hotspot.")
@click.option("--hotspot-fraction", type=float, default=None, metavar="F",
              help="hotspot: share of packets to the hot endpoints [default: 0.1].")
@click.option("--hotspot-nodes", type=int, default=None, metavar="K",
              help="hotspot: number of hot endpoints [default: 2 % of them, >= 1].")
@click.option("--rates", default="0.05..0.5:0.05", show_default=True,
              help="Injection rates in flits/endpoint/cycle, each in (0, 1].")
@click.option("--router", "router_preset", default="default", show_default=True,
              metavar="PRESET",
              help="Router micro-architecture: default (2 VCs x 8 flits, 1-cycle stages and"
                   " links) or nudt (the NUDT paper's: 8 VCs x 300 flits, 4 one-cycle"
                   " stages, 50-cycle links, 5-cycle endpoint links); the options below"
                   " override single values.")
@click.option("--vcs", type=int, default=None,
              help="VCs per port (dragonfly: >= 3 for min, 6 for valiant / ugal).")
@click.option("--buffer", type=int, default=None, help="Flits per VC buffer.")
@click.option("--router-delay", type=int, default=None,
              help="Router pipeline delay, cycles (the stages' sum when they are given).")
@click.option("--routing-delay", type=int, default=None, help="Routing stage, cycles.")
@click.option("--vc-alloc-delay", type=int, default=None,
              help="VC-allocation stage, cycles.")
@click.option("--switch-alloc-delay", type=int, default=None,
              help="Switch-allocation stage, cycles.")
@click.option("--switch-traversal-delay", type=int, default=None,
              help="Switch-traversal stage, cycles.")
@click.option("--link-delay", type=int, default=None,
              help="Router-router link latency, cycles.")
@click.option("--terminal-delay", type=int, default=None,
              help="Endpoint-router link latency, cycles.")
@click.option("--packet-flits", type=int, default=None, help="Flits per packet (wormhole).")
@click.option("--arbiter", type=click.Choice(["round-robin", "age"]), default=None,
              help="Switch-allocator priority: rotating, or oldest first.")
@click.option("--warmup", type=Count(), default=10_000, show_default=True,
              help="Warm-up cycles.")
@click.option("--measure", type=Count(), default=5_000, show_default=True,
              help="Measurement window, cycles.")
@click.option("--drain", type=Count(), default=5_000, show_default=True,
              help="Most drain cycles after the window.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Random seed (the first one with --seeds).")
@click.option("--seeds", type=Count(), default=1, show_default=True,
              help="Replicates per rate, seeds SEED..SEED+N-1; N > 1 prints means and"
                   " min..max.")
@click.option("--scheduler", default="inline", show_default=True,
              help="Where the runs go: inline, processes, local-cluster or tcp://host:port"
                   " (Dask: pip install 'icnperf[dask]').")
@click.option("--workers", type=Count(), default=None,
              help="Processes for processes / local-cluster [default: CPU count].")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on standard error [default: when it is a terminal].")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
def simulate_traffic(topology: str, routing: str | None, traffic: str,
                     hotspot_fraction: float | None, hotspot_nodes: int | None, rates: str,
                     router_preset: str, vcs: int | None, buffer: int | None,
                     router_delay: int | None, routing_delay: int | None,
                     vc_alloc_delay: int | None, switch_alloc_delay: int | None,
                     switch_traversal_delay: int | None, link_delay: int | None,
                     terminal_delay: int | None, packet_flits: int | None,
                     arbiter: str | None, warmup: int, measure: int, drain: int,
                     seed: int, seeds: int, scheduler: str, workers: int | None,
                     progress: bool | None, fmt: str, output: str | None,
                     force: bool) -> None:
    """Simulated latency and accepted throughput per injection rate, next to the
    closed-form zero-load latency, saturation bound and queueing estimate."""
    from icnperf.commands.simulate import traffic_text
    from icnperf.validation.flitsim.presets import router_settings

    r = router_settings(router_preset, vcs=vcs, buffer=buffer, router_delay=router_delay,
                        link_delay=link_delay, terminal_delay=terminal_delay,
                        packet_flits=packet_flits, arbiter=arbiter,
                        routing_delay=routing_delay, vc_alloc_delay=vc_alloc_delay,
                        switch_alloc_delay=switch_alloc_delay,
                        switch_traversal_delay=switch_traversal_delay)
    stages = {k: r.get(k) for k in ("routing_delay", "vc_alloc_delay", "switch_alloc_delay",
                                    "switch_traversal_delay")}
    emit(traffic_text(topology, traffic, rates, r["vcs"], r["buffer"], r.get("router_delay", 1),
                      r["link_delay"], r["terminal_delay"], r["packet_flits"], warmup,
                      measure, drain, seed, fmt, r["arbiter"], seeds, scheduler, workers,
                      progress, routing=routing, stages=stages,
                      hotspot_fraction=hotspot_fraction, hotspot_nodes=hotspot_nodes),
         output, force)


@simulate.command("collective")
@click.argument("operation")
@click.option("--machine", "machine_name", required=True, metavar="NAME|FILE",
              help="Preset name or machine TOML file (a torus machine).")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE",
              help="Override a machine value (repeatable).")
@click.option("--nodes", default=None, metavar="RANGE",
              help="Reshape the torus to these node counts (as predict collective).")
@click.option("--bytes", "sizes", default="256B", show_default=True, metavar="RANGE",
              help="Message size (all-gather: the whole gathered vector).")
@click.option("--algorithm", default=None, metavar="NAME",
              help="hw-tree, p2p-tree (broadcast) or recursive-doubling (allgather);"
                   " default hw-tree, recursive-doubling for allgather.")
@click.option("--api", type=click.Choice(["mpi", "shmem", "none"]), default="mpi",
              show_default=True, help="Software overhead charged per message.")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
def simulate_collective(operation: str, machine_name: str, overrides: tuple[str, ...],
                        nodes: str | None, sizes: str, algorithm: str | None, api: str,
                        fmt: str, output: str | None, force: bool) -> None:
    """Simulated completion time of one collective (broadcast, reduce, allreduce,
    allgather) on the machine's torus, next to the closed form."""
    from icnperf.commands.simulate_collective import collective_text

    emit(collective_text(operation, machine_name, overrides, nodes, sizes, algorithm, api,
                         fmt), output, force)


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="icnperf")
