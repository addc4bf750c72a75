"""``python -m icnperf`` runs the command line."""

from icnperf.cli import main

main()
