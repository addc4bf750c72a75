"""Application models. Two kinds:

* **skeletons**, applications as data (docs/skeleton-format.md): expressions.py (the safe
  parser, SymPy), expression_values.py (the exact evaluator of an expression's plain tree,
  without SymPy), skeleton.py (the records), timing.py (phase times),
  patterns.py (halo, point-to-point, collectives), grid.py (process grids), helpers.py (the
  fixed registry of bundled helpers), closed_form.py (explain app), fit.py (calibrate
  --app). The bundled skeletons live in icnperf/data/apps;
* **Python models**, one module per application, each a closed-form time per iteration and
  in total as a function of the machine, node count and problem size, split into compute,
  point-to-point and collective parts (``base.AppResult``): spmv, heat and hpcg (the
  bundled skeletons of the same names reproduce them on every claim) and npb_is (placement
  tables; not a skeleton).
"""
