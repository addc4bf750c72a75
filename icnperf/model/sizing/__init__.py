"""Procurement sizing: the feasible designs for an endpoint count (space, designs), their
bill of materials (cost), the predicted time of a workload mix on each (workload: the full
model), a proven lower bound of that time over the whole space (proxy, with bound, views,
traffic and partition), the safe branch and bound that evaluates the full model only where
the cost-performance Pareto front could change (screen), the front itself (pareto) and the
study (study). Pure: no I/O; the TOML files are read by ``icnperf.data.sizing_inputs``."""
