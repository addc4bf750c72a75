"""icnperf: closed-form performance models of HPC interconnects.

The Python API is at the top level: ``icnperf.machines()``, ``icnperf.machine(name)``,
``icnperf.topology(spec)``, ``icnperf.predict_p2p(machine, ...)``,
``icnperf.predict_collective(machine, operation, ...)``, ``icnperf.predict_app(machine,
app, ...)`` and the other commands' functions (docs/python-api.md). They live in
``icnperf.api`` and are imported on first use (PEP 562), so that ``import icnperf``, which
every command line call makes, stays fast.

Subpackages: ``api`` (the functions above; the command line is built on them), ``model``
(pure formulas), ``data`` (presets, measurements, files), ``validation`` (published claims
and checks), ``sim`` (the flit-level simulator), ``reports`` (text tables, HTML pages,
figures); ``cli`` is the thin command-line front end.
"""

__version__ = "0.1.0"

_API = ("machines", "machine", "topology", "predict_p2p", "predict_collective", "predict_app",
        "place", "compare_topologies", "explain_collective", "explain_app",
        "explain_saturation", "crossover",
        "simulate_traffic", "simulate_collective", "calibrate",
        "validate", "report", "size")
"""The API's functions offered at the top level (icnperf.api.__all__)."""


def __getattr__(name: str):
    if name in _API:
        import icnperf.api

        return getattr(icnperf.api, name)
    raise AttributeError(f"module 'icnperf' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_API])
