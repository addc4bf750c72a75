"""Closed-form structural models of interconnect topologies.

``base`` (the Metrics record and shared conventions), one module or package per family
group (``torus``: torus/mesh/hypercube; ``fattree``: FT(k,n) and folded Clos;
``xgft``: extended generalized fat trees, ``tree_routing``: routes on them;
``dragonfly``: dragonfly and megafly/dragonfly+; ``slimfly``: MMS slim fly), ``spec``
(``family:params`` text -> a checked spec) and ``compare`` (smallest design per family for
N endpoints). Every metric function broadcasts over NumPy arrays of parameters.
"""
