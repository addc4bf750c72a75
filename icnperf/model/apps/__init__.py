"""Application models: one module per application, each a closed-form time per iteration
and in total as a function of the machine, node count and problem size, split into
compute, point-to-point and collective parts (``base.AppResult``)."""
