"""Validation: every published claim the tool must reproduce, and how each is checked.

``registry`` holds the claim records and the list of all claims; ``claims/`` has one module
per source paper; ``checks`` evaluates a claim into a result row. Validation imports the
model, never the reverse.
"""
