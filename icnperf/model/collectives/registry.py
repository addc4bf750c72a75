"""The table of collectives: the operation and algorithm names (OPERATIONS, ALGORITHMS and
the operation aliases), :class:`Entry` and :data:`TABLE` (every defined (algorithm,
operation) pair, its summary, notes and round description), and the name checks
:func:`defined`, :func:`operation_name` and ``_check``."""

from __future__ import annotations

from typing import NamedTuple

from icnperf.errors import InputError

OPERATIONS = ("broadcast", "reduce", "allreduce", "allgather", "alltoall", "barrier")
"""Collective operations, in the order tables list them."""

ALGORITHMS = ("hw-tree", "p2p-tree", "binomial", "recursive-doubling", "ring",
              "rabenseifner", "bruck")
"""The closed-form algorithms, in the order tables list them; ``hw-tree`` is the hardware
one. Every one has a symbolic form (explain) and is what sizing's "best" chooses among."""

LIBRARY_ALGORITHMS = ("linear", "pairwise", "reduce-bcast")
"""The defaults and fallbacks MPI libraries run (SMPI's names: validation/claims/simgrid.py),
evaluated on a machine by name or in ``compare``'s default set up to their rank limits
(collectives.fluid.rank_limit); linear and reduce-bcast are timed as flows, numeric only."""

ALL_ALGORITHMS = ALGORITHMS + LIBRARY_ALGORITHMS
"""Every algorithm name a caller may give."""

_ALIASES = {
    "bcast": "broadcast",
    "all-reduce": "allreduce",
    "all_reduce": "allreduce",
    "all-gather": "allgather",
    "all_gather": "allgather",
    "all-to-all": "alltoall",
    "all_to_all": "alltoall",
}


# --- the table of algorithms and operations ---------------------------------------------


class Entry(NamedTuple):
    """One defined (algorithm, operation) pair: how its time is computed and what it
    assumes. ``steps`` is the schedule description of a point-to-point algorithm (None for
    the tree formulas)."""

    algorithm: str
    operation: str
    summary: str
    notes: tuple[str, ...]
    steps: str | None = None


_POW2_FOLD = ("non-power-of-two P: MPICH's fallback (Thakur et al. §4.4): with p' = "
              "2^floor(lg P) and r = P - p', ranks 0, 2, ..., 2r-2 first send their m bytes "
              "to the next rank, which combines them; the p' survivors run the algorithm; "
              "then the r ranks get the result back (2 extra steps)")

_ELEMENTS = ("whole elements (MPICH, SMPI): the vector of c = m / e elements (e: the "
             "element size, default 8 B) is cut into p' blocks of floor(c/p') elements, "
             "the rest in the last; a step's message holding the last block carries "
             "k floor(c/p') + c mod p' elements, so with c < p' every step carries all c "
             "(the symbolic form divides m evenly)")

TABLE: dict[tuple[str, str], Entry] = {
    ("hw-tree", "broadcast"): Entry(
        "hw-tree", "broadcast", "hardware tree broadcast: O + T_hw(m, h_s + D) store-and-forward",
        ("source: the tree's root unless source_hops > 0 (a non-root source first climbs to "
         "the root, Mukosey 2015 Fig. 2)",)),
    ("hw-tree", "reduce"): Entry(
        "hw-tree", "reduce", "hardware tree reduce to the root: O + T_hw(m, D) + credit delay",
        ("target: the tree's root",)),
    ("hw-tree", "allreduce"): Entry(
        "hw-tree", "allreduce", "hardware reduce then broadcast: O + T_hw(m, 2D) + credit delay",
        ()),
    ("hw-tree", "allgather"): Entry(
        "hw-tree", "allgather",
        "every rank broadcasts m/P on one of N_t trees: O + T_hw(m/P, H + D) - T_ser(m/P) + "
        "max((P-1) T_ser(m/P), ceil(P/N_t) W(m/P)/B_link)",
        ("trees: network.collective_trees (16) with roots spread evenly; rank r uses tree "
         "r mod N_t and may be up to the diameter H from its root",)),
    ("hw-tree", "barrier"): Entry(
        "hw-tree", "barrier", "hardware all-reduce of an empty packet: O + T_hw(0, 2D)", ()),
    ("p2p-tree", "broadcast"): Entry(
        "p2p-tree", "broadcast", "point-to-point down the tree: D T(m,1) + t g(m)",
        ("source: the tree's root unless source_hops > 0 (then one p2p message to the root "
         "first)",)),
    ("p2p-tree", "reduce"): Entry(
        "p2p-tree", "reduce", "point-to-point up the tree: D (T(m,1) + γm) + t g(m)",
        ("target: the tree's root",)),
    ("p2p-tree", "allreduce"): Entry(
        "p2p-tree", "allreduce", "p2p reduce then p2p broadcast over the tree: "
        "D (2 T(m,1) + γm) + 2 t g(m)", ()),
    ("p2p-tree", "barrier"): Entry(
        "p2p-tree", "barrier", "p2p all-reduce of empty messages over the tree", ()),
    ("binomial", "broadcast"): Entry(
        "binomial", "broadcast", "binomial tree from rank 0: ceil(lg P) steps of m "
        "(Thakur: ceil(lg p)(α + nβ))", (),
        "round t = ceil(lg P)-1 .. 0: ranks r = 0 mod 2^(t+1) send m to r + 2^t"),
    ("binomial", "reduce"): Entry(
        "binomial", "reduce", "binomial tree to rank 0: ceil(lg P) steps of m, combined "
        "(Thakur: ceil(lg p)(α + nβ + nγ))", (),
        "round t = 0 .. ceil(lg P)-1: ranks r = 2^t mod 2^(t+1) send m to r - 2^t"),
    ("binomial", "allreduce"): Entry(
        "binomial", "allreduce", "binomial reduce to rank 0 then binomial broadcast "
        "(Thakur: 2 ceil(lg p)(α + nβ) + ceil(lg p) nγ)", (),
        "binomial reduce rounds, then binomial broadcast rounds"),
    ("recursive-doubling", "allgather"): Entry(
        "recursive-doubling", "allgather", "lg P exchanges of 2^k m/P "
        "(Thakur: lg p α + (p-1)/p nβ)",
        ("non-power-of-two P: MPICH's fallback for short all-gathers, Bruck's algorithm "
         "(Thakur et al. §4.1), ceil(lg P) steps",),
        "step k: rank r exchanges its 2^k blocks with r XOR 2^k"),
    ("recursive-doubling", "allreduce"): Entry(
        "recursive-doubling", "allreduce", "lg P exchanges of m, combined "
        "(Thakur: lg p (α + nβ + nγ))", (_POW2_FOLD,),
        "step k: rank r exchanges m with r XOR 2^k and combines"),
    ("recursive-doubling", "barrier"): Entry(
        "recursive-doubling", "barrier", "recursive-doubling all-reduce of empty messages "
        "(lg P α)", (_POW2_FOLD,),
        "step k: rank r exchanges an empty message with r XOR 2^k"),
    ("ring", "allgather"): Entry(
        "ring", "allgather", "P - 1 steps of m/P to the next rank "
        "(Thakur: (p-1)α + (p-1)/p nβ)", (),
        "P - 1 steps: rank r sends one block of m/P to r + 1 mod P"),
    ("ring", "allreduce"): Entry(
        "ring", "allreduce", "ring reduce-scatter then ring all-gather: 2(P-1) steps of m/P "
        "(2(p-1)α + 2(p-1)/p nβ + (p-1)/p nγ)", (),
        "P - 1 combining steps then P - 1 plain steps: rank r sends m/P to r + 1 mod P"),
    ("ring", "broadcast"): Entry(
        "ring", "broadcast", "binomial scatter then ring all-gather (MPICH's long-message "
        "broadcast; Thakur: (lg p + p - 1)α + 2(p-1)/p nβ)", (),
        "binomial scatter of m/P blocks from rank 0, then the ring all-gather"),
    ("recursive-doubling", "broadcast"): Entry(
        "recursive-doubling", "broadcast", "binomial scatter then recursive-doubling "
        "all-gather (MPICH's medium-message broadcast for P a power of two, Open MPI's "
        "scatter_allgather; Thakur: 2 lg p α + 2(p-1)/p nβ)",
        ("non-power-of-two P: the all-gather is Bruck's (as the recursive-doubling "
         "all-gather's fallback); MPICH runs this broadcast only for P a power of two",),
        "binomial scatter of m/P blocks from rank 0, then the recursive-doubling all-gather"),
    ("rabenseifner", "allreduce"): Entry(
        "rabenseifner", "allreduce", "recursive-halving reduce-scatter then recursive-doubling "
        "all-gather (Thakur: 2 lg p α + 2(p-1)/p nβ + (p-1)/p nγ)", (_POW2_FOLD, _ELEMENTS),
        "reduce-scatter: step k exchanges m/2^(k+1) with r XOR 2^k, combining; all-gather: "
        "the same pairs and sizes in reverse order"),
    ("rabenseifner", "reduce"): Entry(
        "rabenseifner", "reduce", "recursive-halving reduce-scatter then binomial gather "
        "(Thakur: 2 lg p α + 2(p-1)/p nβ + (p-1)/p nγ)",
        ("non-power-of-two P: the pre-step of MPICH's fallback (ranks 0, 2, ..., 2r-2 send "
         "to the next rank); the root is the first survivor (rank 1 when P is not a power "
         "of two, else rank 0)", _ELEMENTS),
        "reduce-scatter as in the all-reduce, then binomial gather of 2^k m/P to the root"),
    ("bruck", "allgather"): Entry(
        "bruck", "allgather", "ceil(lg P) steps of min(2^k, P-2^k) m/P "
        "(Thakur: ceil(lg p)α + (p-1)/p nβ)", (),
        "step k: rank r sends to r - 2^k mod P"),
    ("bruck", "alltoall"): Entry(
        "bruck", "alltoall", "ceil(lg P) steps, each sending the blocks whose index has bit k "
        "(Thakur: lg p α + (n/2) lg p β)",
        ("local rotations of the blocks are not charged",),
        "step k: rank r sends the blocks j with bit k set (m/P each) to r + 2^k mod P"),
    ("bruck", "barrier"): Entry(
        "bruck", "barrier", "dissemination barrier: ceil(lg P) steps of empty messages "
        "(MPICH's barrier; ceil(lg p) α)", (),
        "step k: rank r sends an empty message to r + 2^k mod P"),
    ("linear", "allgather"): Entry(
        "linear", "allgather", "every rank posts all P - 1 sends of its block m/P at once "
        "(SMPI's default all-gather): one step of P(P-1) messages", (),
        "one step: rank r sends m/P to every other rank"),
    ("linear", "broadcast"): Entry(
        "linear", "broadcast", "the root sends m to every rank at once: one step of P - 1 "
        "messages sharing its links", (),
        "one step: rank 0 sends m to every other rank"),
    ("linear", "reduce"): Entry(
        "linear", "reduce", "every rank sends m to the root at once, which combines them: "
        "one step of P - 1 messages", (),
        "one step: every rank r > 0 sends m to rank 0"),
    ("pairwise", "allgather"): Entry(
        "pairwise", "allgather", "P - 1 shift steps of m/P: at step i rank r sends its own "
        "block to r + i and receives from r - i (SimGrid's 'ring', Faraj's pairwise)", (),
        "step i = 1 .. P-1: rank r sends its block of m/P to r + i mod P"),
    ("linear", "alltoall"): Entry(
        "linear", "alltoall", "every rank posts all P - 1 isend/irecv of its blocks m/P at "
        "once (MPICH's 'scattered' all-to-all, Open MPI's linear): one step of P(P-1) "
        "messages",
        ("MPICH posts at most MPIR_CVAR_ALLTOALL_THROTTLE (32) destinations at a time; "
         "above 33 ranks its batches are approximated by one step",),
        "one step: rank r sends its block for rank s (m/P) to every s != r"),
    ("pairwise", "alltoall"): Entry(
        "pairwise", "alltoall", "P - 1 exchange steps of m/P: at step i rank r sends its "
        "block to r XOR i (P a power of two) or r + i (otherwise) and receives from the "
        "matching rank (MPICH's pairwise exchange, Open MPI's pairwise): "
        "(P-1)(α + (m/P)β)", (),
        "step i = 1 .. P-1: rank r sends m/P to r XOR i (P a power of two) or r + i mod P"),
    ("reduce-bcast", "allreduce"): Entry(
        "reduce-bcast", "allreduce", "linear reduce to rank 0 (all P - 1 messages at once), "
        "then a binomial broadcast (SMPI's default all-reduce; a ring all-reduce's fallback "
        "when the vector has fewer elements than ranks)", (),
        "one step: every rank r > 0 sends m to rank 0, combined; then binomial broadcast "
        "rounds"),
}
"""Every defined (algorithm, operation) pair. Pairs not listed are not defined: e.g. the
hardware has no all-to-all (Mukosey 2015: broadcast and reduce only)."""


def defined(algorithm: str, operation: str) -> bool:
    """True when the pair has a formula (see :data:`TABLE`)."""
    return (algorithm, operation_name(operation)) in TABLE


def operation_name(text: str) -> str:
    """The canonical operation name (``all-reduce`` -> ``allreduce``); InputError if
    unknown."""
    name = str(text).strip().lower()
    name = _ALIASES.get(name, name)
    if name not in OPERATIONS:
        raise InputError(f"unknown collective operation {text!r}; choose one of "
                         f"{', '.join(OPERATIONS)}")
    return name


def _check(algorithm: str, operation: str) -> tuple[str, str]:
    operation = operation_name(operation)
    if algorithm not in ALL_ALGORITHMS:
        raise InputError(f"unknown algorithm {algorithm!r}; choose one of "
                         f"{', '.join(ALL_ALGORITHMS)}")
    if (algorithm, operation) not in TABLE:
        have = [a for a in ALL_ALGORITHMS if (a, operation) in TABLE]
        raise InputError(f"{algorithm} does not define {operation}; algorithms for "
                         f"{operation}: {', '.join(have)}")
    return algorithm, operation
