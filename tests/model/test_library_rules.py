"""``--algorithm auto``: the MPI libraries' default choices. Each expected algorithm is read
off the library's own source by hand (MPICH 3.2.1's *_intra_auto code and CVAR defaults,
MPICH v4.1's maint/tuning/coll/mpir/generic.json, Open MPI v4.1.6's
coll_tuned_decision_fixed.c and coll_base fallbacks), not from the module's output."""

from __future__ import annotations

import pytest

from icnperf.errors import InputError
from icnperf.model.collectives import TABLE, library_rules as R

KiB = 1024


def pick(key, operation, m, p, element=8):
    library = R.RULE_SETS[key][0]
    return R.choose(library, key, operation, m, p, element)[0]


@pytest.mark.parametrize("m, p, expected", [
    (2048, 16, "recursive-doubling"),        # <= MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE
    (2056, 16, "rabenseifner"),              # 257 doubles >= pof2 16
    (4096, 1024, "recursive-doubling"),      # 512 doubles < pof2 1024
    (4096, 1500, "recursive-doubling"),      # pof2 of 1500 is 1024
    (16 * KiB, 1500, "rabenseifner"),        # 2048 doubles >= 1024
])
def test_mpich3_allreduce(m, p, expected):
    assert pick("mpich-3", "allreduce", m, p) == expected


@pytest.mark.parametrize("m, p, expected", [
    (8, 16, "recursive-doubling"),           # avg_msg_size<=8
    (16, 16, "recursive-doubling"),          # count 2 < pof2 16
    (1024, 16, "rabenseifner"),              # 128 doubles >= 16
    (1024, 256, "recursive-doubling"),       # 128 < 256
])
def test_mpich4_allreduce(m, p, expected):
    assert pick("mpich-4", "allreduce", m, p) == expected


def test_element_size_moves_the_rabenseifner_condition():
    # 1 KiB of 4-byte floats is 256 elements: enough for 256 ranks, 128 doubles are not
    assert pick("mpich-4", "allreduce", 1024, 256, element=4) == "rabenseifner"
    assert pick("mpich-4", "allreduce", 1024, 256, element=8) == "recursive-doubling"


@pytest.mark.parametrize("key, m, p, expected", [
    ("mpich-3", 12287, 16, "binomial"),
    ("mpich-3", 12288, 16, "recursive-doubling"),    # >= short, P a power of two
    ("mpich-3", 12288, 12, "ring"),                  # not a power of two
    ("mpich-3", 524288, 16, "ring"),                 # >= long
    ("mpich-3", 1 << 20, 4, "binomial"),             # P < MIN_PROCS 8
    ("mpich-4", 12288, 16, "binomial"),              # avg_msg_size<=12288
    ("mpich-4", 524288, 16, "recursive-doubling"),   # <=524288
    ("mpich-4", 524289, 16, "ring"),
    ("mpich-4", 1 << 20, 7, "binomial"),             # comm_size<8
])
def test_mpich_broadcast(key, m, p, expected):
    assert pick(key, "broadcast", m, p) == expected


@pytest.mark.parametrize("key", ["mpich-3", "mpich-4"])
def test_mpich_allgather_reduce_barrier(key):
    assert pick(key, "allgather", 524287, 16) == "recursive-doubling"
    assert pick(key, "allgather", 524288, 16) == "ring"
    assert pick(key, "allgather", 81919, 12) == "bruck"
    assert pick(key, "allgather", 81920, 12) == "ring"
    assert pick(key, "reduce", 2048, 16) == "binomial"
    assert pick(key, "reduce", 4096, 16) == "rabenseifner"
    assert pick(key, "reduce", 4096, 1024) == "binomial"       # 512 doubles < 1024
    assert pick(key, "barrier", 0, 100) == "bruck"


def test_mpich_alltoall_compares_one_block():
    # icnperf's m is everything a rank sends; MPICH's nbytes is one block, m / P
    assert pick("mpich-3", "alltoall", 256 * 16, 16) == "bruck"
    assert pick("mpich-3", "alltoall", 257 * 16, 16) == "linear"
    assert pick("mpich-3", "alltoall", 256 * 4, 4) == "linear"          # P < 8
    assert pick("mpich-3", "alltoall", 32768 * 16, 16) == "linear"
    assert pick("mpich-3", "alltoall", 32769 * 16, 16) == "pairwise"
    assert pick("mpich-4", "alltoall", 100 * 4, 4) == "linear"          # comm_size<8
    assert pick("mpich-4", "alltoall", 40000 * 4, 4) == "pairwise"
    assert pick("mpich-4", "alltoall", 256 * 16, 16) == "bruck"


@pytest.mark.parametrize("operation, m, p, expected", [
    ("allreduce", 64, 16, "recursive-doubling"),     # P < 32: [64, 4096) -> 3
    ("allreduce", 8, 16, "recursive-doubling"),      # segmented ring, 1 element < P: rd
    ("allreduce", 4096, 16, "rabenseifner"),         # -> 6, 512 elements >= 16
    ("allreduce", 1 << 20, 64, "rabenseifner"),      # P < 128: >= 262144 -> 6
    ("allreduce", 8, 200, "binomial"),               # P < 256: < 131072 -> 2, approximated
    ("alltoall", 1024, 2, "pairwise"),               # P = 2: block 512 in [256, 4096) -> 5
    ("alltoall", 100 * 64, 64, "bruck"),             # P < 128: block < 1024 -> 3
    ("alltoall", 300 * 128, 128, "bruck"),           # P < 256: block < 1024 -> 3
    ("alltoall", 1500 * 128, 128, "linear"),         # [1024, 2048) -> 4 linear_sync
    ("broadcast", 1 << 20, 16, "recursive-doubling"),  # P < 32: >= 1048576 -> 8
    ("broadcast", 1000, 16, "binomial"),             # P < 32: < 4096 -> 7 knomial
    ("broadcast", 8, 3, "binomial"),                 # P < 4: < 32 -> 3 pipeline, approximated
    ("broadcast", 16 * KiB, 5, "linear"),            # P < 8: [8192, 1048576) -> 1
    ("reduce", 1 << 20, 100, "binomial"),            # P < 256 -> 5
    ("reduce", 4, 3, "linear"),                      # P < 4: < 8 -> 7 rabenseifner, 0 < pof2
    ("barrier", 0, 100, "bruck"),                    # P < 256 -> 4
    ("barrier", 0, 5, "recursive-doubling"),         # P < 8 -> 1 linear, approximated
    ("allgather", 16 * 1024, 16, "recursive-doubling"),  # P < 32 -> 3
    ("allgather", 100 * KiB, 100, "ring"),           # P < 128: block 1024 -> 5 neighbour
    ("allgather", 2 * 100 * KiB, 100, "ring"),       # block 2048 in [512, 65536) -> 5 too
])
def test_openmpi_41(operation, m, p, expected):
    assert pick("openmpi-4.1", operation, m, p) == expected


def test_openmpi_41_allreduce_row_p5_4096():
    # P < 8: sizes [16, 8192) -> 3 (recursive doubling); >= 8192 -> 6
    assert pick("openmpi-4.1", "allreduce", 4096, 5) == "recursive-doubling"
    assert pick("openmpi-4.1", "allreduce", 8192, 5) == "rabenseifner"


def test_reasons_name_the_rule_and_the_approximation():
    algorithm, reason = R.choose("mpich", "mpich-4", "allreduce", 8, 16)
    assert reason == "MPICH 4.x: allreduce <= 8 B"
    algorithm, reason = R.choose("openmpi", "openmpi-4.1", "allreduce", 8, 200)
    assert algorithm == "binomial"
    assert "nonoverlapping" in reason and "approximated" in reason and "P 128..255" in reason
    assert R.choose("openmpi", "openmpi-4.1", "allreduce", 4096, 16)[1] == (
        "Open MPI 4.1: allreduce P 16..31, 4096 B <= size -> rabenseifner")


def test_every_choice_is_a_defined_algorithm():
    for key, (library, _, rules) in R.RULE_SETS.items():
        for operation in ("broadcast", "reduce", "allreduce", "allgather", "alltoall",
                          "barrier"):
            for p in (2, 3, 4, 5, 7, 8, 12, 16, 33, 100, 256, 1000, 5000):
                for m in (0 if operation == "barrier" else 8, 256, 4096, 100000, 1 << 22):
                    algorithm, reason = R.choose(library, key, operation, m, p)
                    assert (algorithm, operation) in TABLE, (key, operation, m, p)
                    assert reason


def test_every_openmpi_table_ends_open_and_grows():
    for operation, rows in R.OMPI_41_TABLES.items():
        assert rows[-1][0] is None
        bounds = [r[0] for r in rows[:-1]]
        assert bounds == sorted(bounds)
        for _, sizes in rows:
            assert sizes[-1][0] is None
            cuts = [s for s, _ in sizes[:-1]]
            assert cuts == sorted(cuts)
            assert all(code in R.OMPI_41_ALGORITHMS[operation] for _, code in sizes)


@pytest.mark.parametrize("library, version, key", [
    ("mpich", "IBM Blue Gene/Q MPI: MPICH2 over PAMI (driver V1R2)", "mpich-3"),
    ("mpich", "MPICH 3.3.2", "mpich-3"),
    ("mpich", "mpich-4.1", "mpich-4"),
    ("mpich", "Cray MPICH 8.1 (cray-mpich >= 8.1.28)", "mpich-4"),   # Cray's own number
    ("mpich", "Cray MPICH 8.1 (cray-mpich >= 8.1.28 with libfabric 1.22; cray-mpich 9.0.1 in "
     "the non-default CPE 25.09)", "mpich-4"),
    ("mpich", None, "mpich-4"),
    ("openmpi", "Fujitsu MPI, based on Open MPI 1.4.3", "openmpi-4.1"),
    ("openmpi", "IBM Spectrum MPI 10.4.0.3", "openmpi-4.1"),
])
def test_rule_set_for_a_machine(library, version, key):
    assert R.rule_set_for(library, version)[0] == key


def test_rule_set_for_says_when_the_version_is_not_encoded():
    assert "not encoded" in R.rule_set_for("openmpi", "based on Open MPI 1.4.3")[1]
    assert "Cray's own" in R.rule_set_for("mpich", "Cray MPICH 8.1")[1]
    assert "not stated" in R.rule_set_for("mpich", "MPICH, version unknown")[1]
    assert R.rule_set_for("mpich", "cray-mpich/9.0.1")[1].startswith("Cray MPICH")


def test_no_library_named_takes_mpich_4_and_says_so():
    for library in (None, ""):
        key, why = R.rule_set_for(library)
        assert key == "mpich-4"
        assert why.startswith("no MPI library named") and "Open MPI" in why


def test_refusals():
    with pytest.raises(InputError, match="mpich and openmpi, not mvapich2"):
        R.rule_set_for("mvapich2")
    with pytest.raises(InputError, match="unknown MPI rule set"):
        R.choose("mpich", "mpich-9", "allreduce", 8, 4)
    with pytest.raises(InputError, match="element size"):
        R.choose("mpich", "mpich-4", "allreduce", 8, 4, 0)
    with pytest.raises(InputError, match="openmpi's, not mpich's"):
        R.choose("mpich", "openmpi-4.1", "allreduce", 8, 4)
