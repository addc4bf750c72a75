"""Validation: every published claim the tool must reproduce, and how each is checked.

``claim`` holds the claim record (its kind: predicted, post-hoc, calibrated or regression; what it
runs; its tolerance and the reason for it) and ``evaluate``; ``claims/`` has one module per
source; ``registry`` gathers them all and refuses a claim that breaks the rules;
``closed_forms`` and ``fabric`` set the model beside the flit simulator. Validation imports
the model, never the reverse.
"""
