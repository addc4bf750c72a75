"""``icnperf predict p2p|collective|app``: what-if predictions on a machine."""

from __future__ import annotations

import click

from icnperf.api.options import (APIS, BUFFERS, CCL_APIS, COMPUTES, HIERARCHIES,
                                 HPCG_VARIANTS, PLACEMENTS)
from icnperf.cli.common import (FORMAT_OPTION, OUTPUT_OPTION, FORCE_OPTION, MACHINE_OPTION,
                                SET_OPTION, WIDE_OPTION, Count, emit,
                                uncertainty_options)

BUFFERS_OPTION = click.option(
    "--buffers", type=click.Choice(BUFFERS), default="host", show_default=True,
    help="Message buffers in host memory or in GPU memory (OSU's -d cuda|rocm D D): gpu"
         " takes the machine's GPU-buffer path (software.gpu_buffer_path[_node]).")


@click.group()
def predict() -> None:
    """What-if predictions on a machine (messages, collectives, applications)."""


@predict.command()
@MACHINE_OPTION
@click.option("--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE",
              help="Override a parameter, e.g. network.link_latency=60ns (repeatable).")
@click.option("--bytes", "sizes", default="8..1MiB:x4", show_default=True,
              help="Message sizes: a range (8..1MiB:x2), a list (8,64,512) or one size;"
                   " bare numbers are bytes.")
@click.option("--hops", type=click.FloatRange(min=0), default=None,
              help="Router-to-router hops [default: the topology's average distance].")
@click.option("--from", "source", default=None, metavar="ENDPOINT",
              help="Source endpoint: an index, or coordinates 1,0,2 on a torus/mesh/hypercube.")
@click.option("--to", "destination", default=None, metavar="ENDPOINT",
              help="Destination endpoint (with --from); hops follow the topology's routing.")
@click.option("--api", type=click.Choice(APIS), default="mpi",
              show_default=True, help="Software overhead charged; none = hardware only.")
@click.option("--ppn", "processes_per_node", type=click.IntRange(min=1), default=1,
              show_default=True,
              help="Processes per node sending at once, spread over the node's NICs.")
@click.option("--same-node", is_flag=True,
              help="Both ranks on one node: shared memory (node.shared_memory_latency and"
                   " node.shared_memory_bandwidth), no network.")
@BUFFERS_OPTION
@click.option("--from-gpu", "from_gpu", type=click.IntRange(min=0), default=None,
              help="With --buffers gpu: the sending GPU (its NIC between nodes) [default: 0].")
@click.option("--to-gpu", "to_gpu", type=click.IntRange(min=0), default=None,
              help="With --buffers gpu --same-node: the receiving GPU of the scale-up domain"
                   " [default: 1, or 0 when --from-gpu is not 0].")
@click.option("--load", "offered_load", type=click.FloatRange(min=0, max=1), default=0.0,
              show_default=True,
              help="Background load, flits/endpoint/cycle as a fraction of a channel: charges"
                   " M/D/1 queueing on every hop (0 = empty network).")
@click.option("--pattern", default="uniform", show_default=True,
              help="Traffic pattern of the background load (its channel load gamma_max).")
@uncertainty_options
@click.option("--production", is_flag=True,
              help="A busy production machine: the machine's [production] background"
                   " traffic (as --load) and OS noise; the latency is the median, with its"
                   " 5-95 % range (docs/machine-format.md).")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
@WIDE_OPTION
def p2p(machine_name: str, overrides: tuple[str, ...], sizes: str, hops: float | None,
        source: str | None, destination: str | None, api: str, processes_per_node: int,
        same_node: bool, buffers: str, from_gpu: int | None, to_gpu: int | None,
        offered_load: float, pattern: str, uncertainty: bool, samples: int | None,
        seed: int | None, production: bool, fmt: str, output: str | None, force: bool,
        wide: bool) -> None:
    """Latency, bandwidth and message rate of one message per size."""
    from icnperf.api import predict_p2p

    result = predict_p2p(machine_name, set=overrides, bytes=sizes, hops=hops, from_=source,
                         to=destination, api=api, ppn=processes_per_node,
                         same_node=same_node, buffers=buffers, from_gpu=from_gpu,
                         to_gpu=to_gpu, load=offered_load, pattern=pattern,
                         uncertainty=uncertainty, samples=samples, seed=seed,
                         production=production, budget_format=fmt)
    emit(result.render(fmt, wide), output, force)


@predict.command()
@click.argument("operation")
@MACHINE_OPTION
@SET_OPTION
@click.option("--nodes", default=None, metavar="RANGE",
              help="Node counts (8..32768:x2); the torus keeps its dimension count (fewer"
                   " below 2^dims nodes) and takes the most balanced radices; a fat tree or"
                   " dragonfly runs a job of N nodes on the machine as it is [default: the"
                   " whole machine].")
@click.option("--shape", default=None, metavar="AxBxC", help="Fix the torus shape.")
@click.option("--bytes", "sizes", default="256B", show_default=True,
              help="Data per rank: a range, a list or one size; bare numbers are bytes.")
@click.option("--algorithm", default="all", show_default=True,
              help="all, hw-tree, p2p-tree, binomial, recursive-doubling, ring, rabenseifner,"
                   " bruck, or what MPI libraries run: linear, pairwise, reduce-bcast; auto:"
                   " the one the machine's MPI library (software.mpi_library) picks. With"
                   " --api nccl|rccl: all, auto, best, nccl-ring, nccl-tree, nvls, nvls-tree,"
                   " collnet, pat, p2p (rccl-ring, rccl-tree).")
@click.option("--element-size", "element_size", default="8B", show_default=True,
              metavar="SIZE",
              help="Bytes of one data element (a double): the element counts of auto's rules"
                   " and Rabenseifner's whole-element split.")
@click.option("--api", type=click.Choice(APIS + CCL_APIS),
              default="mpi", show_default=True,
              help="Software overhead per message and per hardware call; nccl, rccl: the GPU"
                   " collective library's algorithms with nccl-tests' algbw and busbw"
                   " (docs/nccl.md).")
@click.option("--ppn", "processes_per_node", type=click.IntRange(min=1), default=None,
              help="Processes per node: ranks r..r+ppn-1 share a node [default: 1; with"
                   " --api nccl|rccl one per GPU, node.accelerators].")
@click.option("--hierarchy", type=click.Choice(HIERARCHIES), default=None,
              help="With --ppn > 1: node = node-local binomial phases through shared memory"
                   " and the algorithm among one leader per node (MPICH's SMP-aware"
                   " collectives); flat = the algorithm over every rank"
                   " [default: node when --ppn > 1 for broadcast, reduce, allreduce and"
                   " barrier, else flat].")
@click.option("--placement", type=click.Choice(PLACEMENTS),
              default="linear", show_default=True,
              help="Nodes on endpoints: in order, round-robin over leaf switches (trees) or"
                   " groups (dragonflies), or a random permutation (seed 0).")
@BUFFERS_OPTION
@uncertainty_options
@click.option("--production", is_flag=True,
              help="Times on a busy production machine: the machine's [production] OS noise"
                   " and background traffic (docs/machine-format.md); the time is the"
                   " median, with its 5-95 % range (with --uncertainty, over the drawn"
                   " inputs too). Algorithms with a step schedule; any --ppn, --placement"
                   " and --hierarchy.")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
@WIDE_OPTION
def collective(operation: str, machine_name: str, overrides: tuple[str, ...],
               nodes: str | None, shape: str | None, sizes: str, algorithm: str,
               element_size: str, api: str, processes_per_node: int | None,
               hierarchy: str | None, placement: str, buffers: str, uncertainty: bool,
               samples: int | None, seed: int | None, production: bool, fmt: str,
               output: str | None, force: bool, wide: bool) -> None:
    """Time of a collective OPERATION (broadcast, reduce, allreduce, allgather, alltoall,
    barrier) per node count, size and algorithm, on the machine's torus, fat tree or
    dragonfly."""
    from icnperf.api import predict_collective

    result = predict_collective(machine_name, operation, set=overrides, nodes=nodes,
                                shape=shape, bytes=sizes, algorithm=algorithm,
                                element_size=element_size, api=api,
                                ppn=processes_per_node, hierarchy=hierarchy,
                                placement=placement, buffers=buffers, production=production,
                                uncertainty=uncertainty, samples=samples, seed=seed,
                                budget_format=fmt)
    emit(result.render(fmt, wide), output, force)


@predict.command()
@click.argument("app", metavar="FILE.toml|NAME")
@MACHINE_OPTION
@SET_OPTION
@click.option("--nodes", default=None, metavar="RANGE",
              help="Node counts; the torus is reshaped, a fat tree or dragonfly runs the job"
                   " on its first N endpoints, as in predict collective.")
@click.option("--shape", default=None, metavar="AxBxC", help="Fix the torus shape.")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="Set a skeleton parameter, e.g. n=2048 (repeatable; bare SI numbers).")
@click.option("--algorithm", default=None, metavar="ALG",
              help="Algorithm of every collective phase (best: the fastest; auto: the MPI"
                   " library's; hw-tree, recursive-doubling, p2p-tree, ...), or all: the"
                   " hardware tree beside each phase's point-to-point algorithm, with"
                   " p2p / hw-tree [default: each phase's own].")
@click.option("--ppn", "processes_per_node", type=click.IntRange(min=1), default=None,
              help="Processes per node [default: the skeleton's, else the machine's].")
@click.option("--rows", type=Count(), default=None, help="spmv: matrix rows (param rows).")
@click.option("--nnz-per-row", "nonzeros_per_row", type=Count(), default=None,
              help="spmv: non-zeros per row (param nonzeros_per_row).")
@click.option("--cells", type=Count(), default=None, help="heat: grid cells (param cells).")
@click.option("--steps", type=Count(), default=None, help="heat: time steps (param steps).")
@click.option("--iterations", type=Count(), default=None,
              help="spmv, hpcg: iterations (param iterations).")
@click.option("--local", default=None, metavar="NXxNYxNZ",
              help="hpcg: local domain (params nx, ny, nz).")
@click.option("--variant", type=click.Choice(HPCG_VARIANTS), default=None,
              help="hpcg: reference 2.4 (MPI) or the machine's optimized HPCG"
                   " (hpcg-vendor; hpcg-optimized on the Angara presets).")
@click.option("--compute", type=click.Choice(COMPUTES), default=None,
              help="Where the compute phases run: cpu (the skeleton as written) or gpu (the"
                   " roofline of the node's accelerators) [default: cpu].")
@click.option("--class", "klass", default=None, help="npb-is: problem class (S..D).")
@click.option("--placement", type=click.Choice(PLACEMENTS),
              default="linear", show_default=True,
              help="Nodes on endpoints, as in predict collective: in order, round-robin over"
                   " leaf switches (trees) or groups (dragonflies), or a random permutation"
                   " (seed 0).")
@BUFFERS_OPTION
@uncertainty_options
@click.option("--production", is_flag=True,
              help="A busy production machine: the machine's [production] background"
                   " traffic and OS noise on every phase; times are medians with their"
                   " 5-95 % range (docs/machine-format.md).")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
@WIDE_OPTION
def app(app: str, machine_name: str, overrides: tuple[str, ...], nodes: str | None,
        shape: str | None, params: tuple[str, ...], algorithm: str | None, placement: str,
        buffers: str, uncertainty: bool, samples: int | None, seed: int | None,
        production: bool, fmt: str, output: str | None, force: bool, wide: bool,
        **problem) -> None:
    """Time per phase and its share of the total per node count for an application
    skeleton: a TOML file (docs/skeleton-format.md) or a bundled NAME (spmv, heat, hpcg,
    hpcg-optimized, hpcg-vendor, jacobi3d; training steps on NCCL/RCCL: dp-step, moe-step,
    tp-layer); npb-is ranks placements with its Python
    model."""
    from icnperf.api import predict_app

    result = predict_app(machine_name, app, set=overrides, nodes=nodes, shape=shape,
                         param=params, algorithm=algorithm, placement=placement,
                         buffers=buffers,
                         ppn=problem.pop("processes_per_node"),
                         nnz_per_row=problem.pop("nonzeros_per_row"),
                         class_=problem.pop("klass"), uncertainty=uncertainty,
                         samples=samples, seed=seed, production=production,
                         budget_format=fmt, **problem)
    emit(result.render(fmt, wide), output, force)

