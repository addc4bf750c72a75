"""icnperf: closed-form performance models of HPC interconnects.

Subpackages: ``model`` (pure formulas), ``validation`` (published claims and checks),
``data`` (bundled presets and measurements with provenance). ``cli`` is the thin
command-line front end.
"""

__version__ = "0.1.0"
