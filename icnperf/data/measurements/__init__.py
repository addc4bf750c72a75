"""Published measurements: the bundled tables (one per source table or figure, each with a
provenance sidecar) and the readers for them and for OSU / IMB benchmark output."""
