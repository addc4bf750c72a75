"""The algorithm an MPI library runs by default (``--algorithm auto``): its documented
selection rules by operation, message size and rank count, as data tables, and the pure
function :func:`choose` that applies them.

Rule sets (:data:`RULE_SETS`):

* ``mpich-3``: MPICH2 1.x to MPICH 3.3, Thakur, Rabenseifner & Gropp, "Optimization of
  Collective Communication Operations in MPICH", IJHPCA 19(1), 2005, with MPICH's CVAR
  defaults as MPICH 3.2.1 declares and uses them (src/mpi/coll/{bcast,allreduce,reduce,
  allgather,alltoall}.c): MPIR_CVAR_BCAST_SHORT_MSG_SIZE 12288, _LONG_MSG_SIZE 524288,
  _MIN_PROCS 8; ALLREDUCE_SHORT_MSG_SIZE 2048; REDUCE_SHORT_MSG_SIZE 2048;
  ALLGATHER_SHORT_MSG_SIZE 81920, _LONG_MSG_SIZE 524288; ALLTOALL_SHORT_MSG_SIZE 256,
  _MEDIUM_MSG_SIZE 32768; barrier by dissemination.
* ``mpich-4``: MPICH 3.4 to 4.x, the compositional selection ("csel") with MPICH's default
  tree maint/tuning/coll/mpir/generic.json (the same file in v3.4, v4.0, v4.1, v4.2.0). It
  keeps the thresholds above except that all-reduce takes Rabenseifner's algorithm above
  8 B (not 2048 B), broadcast compares with <= and the all-to-all of fewer than 8 ranks
  never uses Bruck's algorithm; barrier is k-dissemination with k = 2 (dissemination).
* ``openmpi-4.1``: Open MPI 4.1's ``tuned`` component, the fixed decision functions of
  ompi/mca/coll/tuned/coll_tuned_decision_fixed.c (v4.1.6), commutative operations: tables
  by communicator size and message size (transcribed below as data), with the fallbacks of
  ompi/mca/coll/base (ring all-reduce with fewer elements than ranks and Rabenseifner's
  with fewer than 2^floor(lg P) run recursive doubling; the scatter-allgather broadcasts
  with fewer elements than ranks and Rabenseifner's reduce with fewer than 2^floor(lg P)
  run the linear algorithm). Several of Open MPI's algorithms are not in icnperf (chain,
  pipeline, binary and k-nomial trees, the non-overlapping all-reduce, neighbour-exchange
  all-gather, linear and tree barriers): each is mapped to the nearest icnperf algorithm
  and the reason says "approximated".

Sizes follow icnperf's conventions (collectives package docstring): m is the broadcast
message, the reduced vector, the whole gathered vector of an all-gather and everything one
rank sends in an all-to-all. The libraries compare: MPICH's all-gather the gathered total
(m), Open MPI's all-gather one rank's block (m/P); both all-to-alls one block (m/P);
everything else m. Element counts (Rabenseifner's count >= 2^floor(lg P), the fallbacks)
take ``element_bytes`` (default 8: a double) and count = floor(m / element_bytes).

Operations are taken commutative with a built-in reduction operator (MPI_SUM on doubles),
as in every icnperf reduction. Node-aware (SMP) paths are not modelled here: ``ranks`` is
the communicator the rule sees (a hierarchical caller passes the node count for the
inter-node phase).
"""

from __future__ import annotations

from typing import NamedTuple

from icnperf.errors import InputError
from icnperf.model.collectives.parameters import ELEMENT_SIZE


class Rule(NamedTuple):
    """One row of a first-match rule list: it applies when every condition that is set
    holds. ``algorithm`` is icnperf's name; ``text`` the condition as shown to the user."""

    algorithm: str
    text: str
    bytes_below: float | None = None     # size < bytes_below
    bytes_at_most: float | None = None   # size <= bytes_at_most
    ranks_below: int | None = None       # P < ranks_below
    ranks_at_least: int | None = None    # P >= ranks_at_least
    power_of_two: bool | None = None     # P is (True) or is not (False) a power of two
    elements_below_pof2: bool | None = None  # count < 2^floor(lg P) (True) or >= (False)


DEFAULT_ELEMENT_BYTES = ELEMENT_SIZE
"""Bytes of one element when the caller gives none: a double (MPI_DOUBLE)."""

_MPICH_COMMON = {
    "reduce": (
        Rule("binomial", "reduce <= 2048 B", bytes_at_most=2048),
        Rule("binomial", "reduce, count < pof2", elements_below_pof2=True),
        Rule("rabenseifner", "reduce > 2048 B, count >= pof2"),
    ),
    "allgather": (
        Rule("recursive-doubling", "allgather < 524288 B, P a power of two",
             bytes_below=524288, power_of_two=True),
        Rule("bruck", "allgather < 81920 B, P not a power of two", bytes_below=81920),
        Rule("ring", "allgather >= 524288 B, or >= 81920 B with P not a power of two"),
    ),
    "barrier": (Rule("bruck", "barrier: dissemination"),),
}

MPICH_3 = {
    "broadcast": (
        Rule("binomial", "broadcast < 12288 B", bytes_below=12288),
        Rule("binomial", "broadcast, P < 8", ranks_below=8),
        Rule("recursive-doubling", "broadcast < 524288 B, P a power of two: scatter + "
             "recursive-doubling allgather", bytes_below=524288, power_of_two=True),
        Rule("ring", "broadcast >= 524288 B or P not a power of two: scatter + ring "
             "allgather"),
    ),
    "allreduce": (
        Rule("recursive-doubling", "allreduce <= 2048 B", bytes_at_most=2048),
        Rule("recursive-doubling", "allreduce, count < pof2", elements_below_pof2=True),
        Rule("rabenseifner", "allreduce > 2048 B, count >= pof2"),
    ),
    "alltoall": (
        Rule("bruck", "alltoall block <= 256 B, P >= 8", bytes_at_most=256, ranks_at_least=8),
        Rule("linear", "alltoall block <= 32768 B: all isend/irecv posted (scattered)",
             bytes_at_most=32768),
        Rule("pairwise", "alltoall block > 32768 B: pairwise exchange"),
    ),
    **_MPICH_COMMON,
}
"""MPICH 3.2.1's auto selection (Thakur et al. 2005 and the CVAR defaults): first match."""

MPICH_4 = {
    "broadcast": (
        Rule("binomial", "broadcast, P < 8", ranks_below=8),
        Rule("binomial", "broadcast <= 12288 B", bytes_at_most=12288),
        Rule("recursive-doubling", "broadcast <= 524288 B, P a power of two: scatter + "
             "recursive-doubling allgather", bytes_at_most=524288, power_of_two=True),
        Rule("ring", "broadcast > 524288 B or P not a power of two: scatter + ring "
             "allgather"),
    ),
    "allreduce": (
        Rule("recursive-doubling", "allreduce <= 8 B", bytes_at_most=8),
        Rule("recursive-doubling", "allreduce, count < pof2", elements_below_pof2=True),
        Rule("rabenseifner", "allreduce > 8 B, count >= pof2"),
    ),
    "alltoall": (
        Rule("linear", "alltoall, P < 8, block <= 32768 B: scattered", ranks_below=8,
             bytes_at_most=32768),
        Rule("pairwise", "alltoall, P < 8, block > 32768 B: pairwise exchange",
             ranks_below=8),
        Rule("bruck", "alltoall block <= 256 B", bytes_at_most=256),
        Rule("linear", "alltoall block <= 32768 B: scattered", bytes_at_most=32768),
        Rule("pairwise", "alltoall block > 32768 B: pairwise exchange"),
    ),
    **_MPICH_COMMON,
}
"""MPICH 3.4-4.x's default selection tree (mpir/generic.json): first match. Its reduce and
all-gather rules are 3.x's (the JSON's ``avg_msg_size<=2048`` and ``total_msg_size<...``)."""


# --- Open MPI 4.1 tuned: (ranks below, ((bytes below, algorithm code), ...)) ------------
# None = any. Transcribed from coll_tuned_decision_fixed.c of Open MPI v4.1.6, the
# commutative branch of allreduce and reduce; a communicator of exactly 2 ranks is written
# (3, ...) (rank counts below 3 start at 2).

OMPI_41_TABLES = {
    "allreduce": (
        (4, ((8, 4), (4096, 3), (8192, 4), (16384, 3), (65536, 4), (262144, 5), (None, 6))),
        (8, ((16, 4), (8192, 3), (None, 6))),
        (16, ((8192, 3), (None, 6))),
        (32, ((64, 5), (4096, 3), (None, 6))),
        (64, ((128, 5), (None, 6))),
        (128, ((262144, 3), (None, 6))),
        (256, ((131072, 2), (262144, 3), (None, 6))),
        (512, ((4096, 2), (None, 6))),
        (2048, ((2048, 2), (16384, 3), (None, 6))),
        (4096, ((2048, 2), (4096, 5), (16384, 3), (None, 6))),
        (None, ((2048, 2), (16384, 5), (32768, 3), (None, 6))),
    ),
    "alltoall": (
        (3, ((2, 2), (4, 5), (16, 2), (64, 5), (256, 2), (4096, 5), (32768, 2), (262144, 4),
             (1048576, 5), (None, 2))),
        (8, ((8192, 4), (16384, 1), (65536, 4), (524288, 1), (1048576, 2), (None, 1))),
        (16, ((262144, 4), (None, 1))),
        (32, ((4, 4), (512, 3), (8192, 4), (32768, 1), (262144, 4), (524288, 1), (None, 4))),
        (64, ((512, 3), (524288, 1), (None, 4))),
        (128, ((1024, 3), (2048, 1), (4096, 4), (262144, 1), (None, 2))),
        (256, ((1024, 3), (2048, 4), (262144, 1), (None, 2))),
        (512, ((1024, 3), (8192, 4), (32768, 1), (None, 2))),
        (1024, ((512, 3), (8192, 4), (16384, 1), (131072, 4), (262144, 1), (None, 2))),
        (2048, ((512, 3), (1024, 4), (2048, 1), (16384, 4), (262144, 1), (None, 4))),
        (4096, ((1024, 3), (4096, 4), (8192, 1), (131072, 4), (None, 1))),
        (None, ((2048, 3), (8192, 4), (16384, 1), (32768, 4), (65536, 1), (None, 4))),
    ),
    "barrier": (
        (4, ((None, 3),)), (8, ((None, 1),)), (64, ((None, 3),)), (256, ((None, 4),)),
        (512, ((None, 6),)), (1024, ((None, 4),)), (4096, ((None, 6),)), (None, ((None, 4),)),
    ),
    "broadcast": (
        (4, ((32, 3), (256, 5), (512, 3), (1024, 7), (32768, 1), (131072, 5), (262144, 2),
             (524288, 1), (1048576, 6), (None, 5))),
        (8, ((64, 5), (128, 6), (2048, 5), (8192, 6), (1048576, 1), (None, 2))),
        (16, ((8, 7), (64, 5), (4096, 7), (16384, 5), (32768, 6), (None, 1))),
        (32, ((4096, 7), (1048576, 6), (None, 8))),
        (64, ((2048, 6), (None, 7))),
        (128, ((None, 7),)),
        (256, ((2, 6), (16384, 5), (32768, 1), (65536, 5), (None, 7))),
        (1024, ((16384, 7), (32768, 4), (None, 7))),
        (2048, ((524288, 7), (None, 8))),
        (4096, ((262144, 7), (None, 8))),
        (None, ((8192, 7), (16384, 5), (262144, 7), (None, 8))),
    ),
    "reduce": (
        (4, ((8, 7), (16, 4), (32, 3), (262144, 1), (524288, 3), (1048576, 2), (None, 3))),
        (8, ((4096, 4), (65536, 2), (262144, 5), (524288, 1), (1048576, 5), (None, 1))),
        (16, ((8192, 4), (None, 5))),
        (32, ((4096, 4), (None, 5))),
        (256, ((None, 5),)),
        (512, ((8192, 5), (16384, 6), (None, 5))),
        (2048, ((None, 5),)),
        (4096, ((512, 5), (1024, 6), (8192, 5), (16384, 6), (None, 5))),
        (None, ((16, 5), (32, 6), (1024, 5), (2048, 6), (8192, 5), (16384, 6), (None, 5))),
    ),
    "allgather": (
        (3, ((None, 6),)),
        (32, ((None, 3),)),
        (64, ((1024, 3), (65536, 5), (None, 4))),
        (128, ((512, 3), (65536, 5), (None, 4))),
        (256, ((512, 3), (131072, 5), (524288, 4), (1048576, 5), (None, 4))),
        (512, ((32, 3), (128, 2), (1024, 3), (131072, 5), (524288, 4), (1048576, 5),
               (None, 4))),
        (1024, ((64, 3), (256, 2), (2048, 3), (None, 5))),
        (2048, ((4, 3), (8, 2), (16, 3), (32, 2), (256, 3), (512, 2), (4096, 3), (None, 5))),
        (4096, ((32, 2), (128, 3), (512, 2), (4096, 3), (None, 5))),
        (None, ((2, 3), (8, 2), (16, 3), (512, 2), (4096, 3), (None, 5))),
    ),
}
"""Open MPI 4.1 tuned fixed decisions: per operation, rows (P below, sizes) in order; a
row's sizes are (size below, Open MPI algorithm number) pairs, first match."""

_APPROX = "approximated by icnperf's "

OMPI_41_ALGORITHMS = {
    # operation: {Open MPI number: (Open MPI's name, icnperf algorithm, approximation)}
    "allreduce": {
        2: ("nonoverlapping", "binomial", "Open MPI's own reduce then its own broadcast; "
            + _APPROX + "binomial reduce + binomial broadcast"),
        3: ("recursive_doubling", "recursive-doubling", None),
        4: ("ring", "ring", None),
        5: ("segmented_ring", "ring", None),  # segment size 0 from the fixed rules: the ring
        6: ("rabenseifner", "rabenseifner", None),
    },
    "alltoall": {
        1: ("linear", "linear", None),
        2: ("pairwise", "pairwise", None),
        3: ("modified_bruck", "bruck", None),
        4: ("linear_sync", "linear", None),  # no request limit by default: all at once
        5: ("two_proc", "pairwise", None),
    },
    "barrier": {
        1: ("linear", "recursive-doubling", "every rank to rank 0 and back; " + _APPROX
            + "recursive doubling"),
        3: ("recursive_doubling", "recursive-doubling", None),
        4: ("bruck", "bruck", None),
        6: ("tree", "recursive-doubling", "a fan-in and fan-out tree; " + _APPROX
            + "recursive doubling"),
    },
    "broadcast": {
        1: ("basic_linear", "linear", None),
        2: ("chain", "binomial", "a chain; " + _APPROX + "binomial tree"),
        3: ("pipeline", "binomial", "a pipelined chain; " + _APPROX + "binomial tree"),
        4: ("split_binary_tree", "binomial", "a split binary tree; " + _APPROX
            + "binomial tree"),
        5: ("binary_tree", "binomial", "a binary tree; " + _APPROX + "binomial tree"),
        6: ("binomial", "binomial", None),
        7: ("knomial", "binomial", "a k-nomial tree; " + _APPROX + "binomial tree"),
        8: ("scatter_allgather", "recursive-doubling", None),
        9: ("scatter_allgather_ring", "ring", None),
    },
    "reduce": {
        1: ("linear", "linear", None),
        2: ("chain", "binomial", "a chain; " + _APPROX + "binomial tree"),
        3: ("pipeline", "binomial", "a pipelined chain; " + _APPROX + "binomial tree"),
        4: ("binary", "binomial", "a binary tree; " + _APPROX + "binomial tree"),
        5: ("binomial", "binomial", None),
        6: ("in-order_binary", "binomial", "an in-order binary tree; " + _APPROX
            + "binomial tree"),
        7: ("rabenseifner", "rabenseifner", None),
    },
    "allgather": {
        2: ("bruck", "bruck", None),
        3: ("recursive_doubling", "recursive-doubling", None),
        4: ("ring", "ring", None),
        5: ("neighbor", "ring", "neighbour exchange (P/2 steps of two blocks); "
            + _APPROX + "ring (odd P: Open MPI runs the ring itself)"),
        6: ("two_proc", "ring", None),
    },
}
"""Open MPI's algorithm numbers per operation, their names and icnperf's algorithm."""

RULE_SETS = {
    "mpich-3": ("mpich", "MPICH 3.2", MPICH_3),
    "mpich-4": ("mpich", "MPICH 4.x", MPICH_4),
    "openmpi-4.1": ("openmpi", "Open MPI 4.1", OMPI_41_TABLES),
}
"""Rule set key -> (library, label shown in reasons, rules)."""

DEFAULT_RULE_SET = {"mpich": "mpich-4", "openmpi": "openmpi-4.1"}
"""The rule set of a library whose version is not recognised (the newest encoded)."""

UNNAMED_LIBRARY = ("mpich-4", "no MPI library named (software.mpi_library): MPICH 4.x's "
                   "rules, icnperf's default, as the Angara papers and the SimGrid runs "
                   "compare with MPICH's algorithms (--set software.mpi_library=openmpi "
                   "for Open MPI's)")
"""(rule set, why) of ``--algorithm auto`` on a machine that names no MPI library."""


def _pow2_floor(p: int) -> int:
    return 1 << (int(p).bit_length() - 1)


def rule_set_for(library: str | None, version: str | None = None) -> tuple[str, str]:
    """(rule set key, why) for a machine's ``software.mpi_library`` and free-text
    ``software.mpi_version``: MPICH2 or an MPICH release below 3.4 -> ``mpich-3``; another
    MPICH release -> ``mpich-4``; Open MPI -> ``openmpi-4.1``; a version that names no
    library release (Cray MPICH's numbers are Cray's own) -> the library's default, said in
    ``why``; no library -> :data:`UNNAMED_LIBRARY` (MPICH 4.x, said in ``why``).
    InputError for a library without encoded rules."""
    import re

    if not library:
        return UNNAMED_LIBRARY
    library = str(library).strip().lower()
    if library not in DEFAULT_RULE_SET:
        raise InputError(f"--algorithm auto has rules for mpich and openmpi, not "
                         f"{library}; give --algorithm")
    text = (version or "").lower()
    if library == "mpich":
        if "mpich2" in text:
            return "mpich-3", "MPICH2: the MPICH 3.2 rules (Thakur et al.'s thresholds)"
        if "cray" in text:
            return "mpich-4", ("Cray MPICH (Cray's own release numbers, its base not stated): "
                               "the MPICH 4.x rules")
        found = re.search(r"(?:mpich[ -]?v?|^\s*v?)(\d+)\.(\d+)", text)
        if found:
            major, minor = int(found.group(1)), int(found.group(2))
            if (major, minor) < (3, 4):
                return "mpich-3", f"MPICH {major}.{minor}: the MPICH 3.2 rules"
            return "mpich-4", f"MPICH {major}.{minor}: the MPICH 4.x rules"
        return "mpich-4", "MPICH release not stated: the MPICH 4.x rules"
    found = re.search(r"(?:open ?mpi[ -]?v?|^\s*v?)(\d+)\.(\d+)", text)
    if found and (int(found.group(1)), int(found.group(2))) != (4, 1):
        newer = (int(found.group(1)), int(found.group(2))) > (4, 1)
        return "openmpi-4.1", (f"Open MPI {found.group(1)}.{found.group(2)}: its "
                               f"{'newer' if newer else 'older'} rules are not encoded, the "
                               "Open MPI 4.1 rules")
    return "openmpi-4.1", "the Open MPI 4.1 rules"


def _matches(rule: Rule, size: float, ranks: int, count: int) -> bool:
    pof2 = _pow2_floor(ranks)
    return ((rule.bytes_below is None or size < rule.bytes_below)
            and (rule.bytes_at_most is None or size <= rule.bytes_at_most)
            and (rule.ranks_below is None or ranks < rule.ranks_below)
            and (rule.ranks_at_least is None or ranks >= rule.ranks_at_least)
            and (rule.power_of_two is None or rule.power_of_two == (ranks == pof2))
            and (rule.elements_below_pof2 is None
                 or rule.elements_below_pof2 == (count < pof2)))


def _mpich(label: str, rules: dict, operation: str, m: float, ranks: int, count: int):
    size = m / ranks if operation == "alltoall" else m
    for rule in rules[operation]:
        if _matches(rule, size, ranks, count):
            return rule.algorithm, f"{label}: {rule.text}"
    raise AssertionError(f"no {label} rule matched {operation}")  # every list ends open


def _number(value: float) -> str:
    return f"{value:g}" if value < 1e6 else f"{int(value)}"


def _openmpi(label: str, operation: str, m: float, ranks: int, count: int):
    size = m / ranks if operation in ("alltoall", "allgather") else m
    what = "block" if operation in ("alltoall", "allgather") else ""
    previous = 2
    for ranks_below, sizes in OMPI_41_TABLES[operation]:
        if ranks_below is None or ranks < ranks_below:
            break
        previous = ranks_below
    span = (f"P >= {previous}" if ranks_below is None else
            f"P {previous}..{ranks_below - 1}" if ranks_below - 1 > previous else
            f"P = {previous}")
    low = 0
    for bytes_below, code in sizes:
        if bytes_below is None or size < bytes_below:
            break
        low = bytes_below
    where = ("" if operation == "barrier" else
             f", {what + ' ' if what else ''}{_number(low)} B <= size"
             + ("" if bytes_below is None else f" < {_number(bytes_below)} B"))
    name, algorithm, approximation = OMPI_41_ALGORITHMS[operation][code]
    reason = f"{label}: {operation} {span}{where} -> {name}"
    pof2 = _pow2_floor(ranks)
    if operation == "allreduce" and name in ("ring", "segmented_ring") and count < ranks:
        return "recursive-doubling", reason + f"; count {count} < P: recursive doubling"
    if operation == "allreduce" and name == "rabenseifner" and count < pof2:
        return "recursive-doubling", reason + f"; count {count} < pof2: recursive doubling"
    if operation == "broadcast" and name.startswith("scatter") and count < ranks:
        return "linear", reason + f"; count {count} < P: basic linear"
    if operation == "reduce" and name == "rabenseifner" and count < pof2:
        return "linear", reason + f"; count {count} < pof2: linear"
    if approximation:
        reason += f" ({approximation})"
    return algorithm, reason


def choose(library: str, version: str, operation: str, message_bytes: float, ranks: int,
           element_bytes: float = DEFAULT_ELEMENT_BYTES) -> tuple[str, str]:
    """(icnperf algorithm, reason) the library's default selection runs for ``operation``
    on ``ranks`` ranks with ``message_bytes`` (icnperf's m, module docstring). ``version``
    is a rule set key of :data:`RULE_SETS` (:func:`rule_set_for` finds it from a machine's
    text). The reason names the rule set and the rule, e.g. "MPICH 4.x: allreduce <= 8 B".
    Pure: h4hier's hierarchical phases call it with the node count."""
    from icnperf.model.collectives.registry import operation_name

    operation = operation_name(operation)
    if version not in RULE_SETS:
        raise InputError(f"unknown MPI rule set {version!r}; choose one of "
                         f"{', '.join(RULE_SETS)}")
    owner, label, rules = RULE_SETS[version]
    if str(library).strip().lower() != owner:
        raise InputError(f"rule set {version} is {owner}'s, not {library}'s")
    if not (isinstance(ranks, int) and ranks >= 1):
        raise InputError(f"ranks must be a whole number >= 1, not {ranks!r}")
    if not element_bytes > 0:
        raise InputError(f"element size must be > 0 bytes, not {element_bytes!r}")
    if operation not in rules:
        raise InputError(f"{label} has no encoded rule for {operation}")
    m = float(message_bytes)
    count = int(m // element_bytes)
    if owner == "mpich":
        return _mpich(label, rules, operation, m, ranks, count)
    return _openmpi(label, operation, m, ranks, count)


def machine_choice(machine, operation: str, message_bytes: float, ranks: int,
                   element_bytes: float = DEFAULT_ELEMENT_BYTES) -> tuple[str, str, str]:
    """(algorithm, reason, rule set note): :func:`choose` under the rule set a machine's
    ``software.mpi_library`` and ``software.mpi_version`` name (:func:`rule_set_for`, whose
    "why" is the note). What ``--algorithm auto`` runs in predict, explain and skeletons."""
    key, why = rule_set_for(machine.get("software.mpi_library"),
                            machine.get("software.mpi_version"))
    algorithm, reason = choose(RULE_SETS[key][0], key, operation, message_bytes, ranks,
                               element_bytes)
    return algorithm, reason, why
