"""Machine = topology + network + node + software parameters, with the source of each value.

A machine comes from a TOML file: a bundled preset (``icnperf/data/machines/NAME.toml``) or a
user's file. Values are written with units (``"80 ns"``, ``"75 Gbit/s"``), counts as bare
integers; inside a :class:`Machine` every value is an SI number. Each value may carry its
source next to it::

    [network]
    link_latency.value = "80 ns"
    link_latency.source = "Mukosey 2015 Table 'Parameters of the evaluated supercomputer'"
    flit_size = "16 B"                      # a value without a recorded source

The format, every key and its unit kind are documented in docs/machine-format.md; the keys
are declared once, in :data:`SCHEMA`. Nothing here knows formulas: models take the numbers.

The package is split by job: :mod:`.schema` (keys, node types, value checks), :mod:`.parse`
(TOML text and ``--set`` items in), :mod:`.serialize` (rows, dict and TOML out),
:mod:`.machine` (the record), :mod:`.presets` (bundled presets and files) and
:mod:`.buffers` (the machine on GPU buffers). Import from
the package: ``from icnperf.data.machine import load_machine, Machine, SCHEMA``.
"""

from icnperf.data.machine.buffers import with_buffers
from icnperf.data.machine.machine import Machine, parse_machine
from icnperf.data.machine.presets import list_presets, load_machine, write_machine
from icnperf.data.machine.schema import (
    FORMAT_VERSION,
    NODE_TYPE_KEYS,
    SCHEMA,
    SECTIONS,
    Key,
    NodeType,
)

__all__ = [
    "FORMAT_VERSION",
    "NODE_TYPE_KEYS",
    "SCHEMA",
    "SECTIONS",
    "Key",
    "Machine",
    "NodeType",
    "list_presets",
    "load_machine",
    "parse_machine",
    "with_buffers",
    "write_machine",
]
