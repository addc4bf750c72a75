"""Procurement sizing: candidate designs for an endpoint count (designs), their bill of
materials (cost), the predicted time of a workload mix on each (workload) and the
cost-performance Pareto front (pareto). Pure: no I/O; the TOML files are read by
``icnperf.reports.text.size``."""
