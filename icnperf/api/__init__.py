"""icnperf's Python API: everything the command line does, from a script or notebook.

The command line (``icnperf.cli``) is built on these functions: each parses nothing but
its options, calls one of them and prints the result. Every function takes the command's
options as keywords (the option's name with dashes as underscores; ``from_`` and
``class_`` where the name is a Python keyword), each as the command line's text or as
Python values in SI units, and returns a result object (:mod:`icnperf.api.results`) whose
``to_dict()`` is the command's JSON. Bad input raises the project's InputError or
DataError with the one-line message the command line prints. The modules import the model,
NumPy and the reports inside the functions, so importing this package costs little.
docs/python-api.md is the guide.
"""

from icnperf.api.application import place, predict_app
from icnperf.api.calibration import calibrate
from icnperf.api.catalog import compare_topologies, machine, machines, topology
from icnperf.api.collective_prediction import predict_collective
from icnperf.api.explanation import crossover, explain_app, explain_collective
from icnperf.api.pages import report, validate
from icnperf.api.point_to_point import predict_p2p
from icnperf.api.simulation import simulate_collective, simulate_traffic
from icnperf.api.sizing import size

__all__ = ["machines", "machine", "topology", "compare_topologies", "predict_p2p",
           "predict_collective", "predict_app", "place", "explain_collective", "explain_app",
           "crossover", "simulate_traffic", "simulate_collective", "calibrate",
           "validate", "report", "size"]
