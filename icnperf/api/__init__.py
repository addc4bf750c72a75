"""icnperf's Python API: everything the command line does, from a script or notebook.

The command line (``icnperf.cli``) is built on these functions: each parses nothing but
its options, calls one of them and prints the result. Every function takes the command's
options as keywords (the option's name with dashes as underscores; ``from_`` and
``class_`` where the name is a Python keyword), each as the command line's text or as
Python values in SI units, and returns a result object (:mod:`icnperf.api.results`) whose
``to_dict()`` is the command's JSON. Bad input raises the project's InputError or
DataError with the one-line message the command line prints. The modules import the model,
NumPy and the reports inside the functions, and this package imports each module on first
use, so importing it costs little.
docs/python-api.md is the guide.
"""

import importlib

_HOMES = {
    "machines": "catalog", "machine": "catalog", "topology": "catalog",
    "compare_topologies": "catalog", "predict_p2p": "point_to_point",
    "predict_collective": "collective_prediction", "predict_app": "application",
    "place": "application", "explain_collective": "explanation",
    "explain_app": "explanation", "explain_saturation": "explanation",
    "crossover": "explanation",
    "simulate_traffic": "simulation", "simulate_collective": "simulation",
    "calibrate": "calibration", "validate": "pages", "report": "pages", "size": "sizing",
}
"""Each function's module: imported on first use (PEP 562), so that the command line, which
imports api.options to build its options, loads no other API module."""

__all__ = list(_HOMES)


def __getattr__(name: str):
    if name in _HOMES:
        return getattr(importlib.import_module(f"icnperf.api.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'icnperf.api' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])
