"""The ``icnperf`` command line: one module per command, each thin (parse options, call
``icnperf.reports.text`` or the model, print). ``root`` holds the group and the only place
where errors become exit codes. Nothing outside this package imports it."""

from icnperf.cli.root import cli, main

__all__ = ["cli", "main"]
