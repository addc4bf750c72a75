"""The rows of ``icnperf.explain_saturation`` (:func:`saturation_rows`): every factor of
a topology's saturation estimate (model/network/saturation.py's FACTORS, evaluated by
model/topology/saturation.py) with its value, formula and source."""

from __future__ import annotations


def saturation_rows(spec_text: str, pattern: str, machine_name: str | None,
                    doc: dict) -> tuple[list[dict], dict]:
    """(one row per factor, the document's inputs) for one topology and pattern; ``doc``
    the topology's document (api.topology_metrics.topology_document: its router and
    channel loads)."""
    from icnperf.model.network.saturation import FACTORS
    from icnperf.model.topology.saturation import saturation_of
    from icnperf.model.topology.spec import parse_spec

    spec = parse_spec(spec_text)
    terms = saturation_of(spec.family.name, spec.params, spec.evaluate(), pattern,
                          doc["router"])
    rows = [{"factor": name, "value": float(terms[key]), "formula": formula,
             "source": source, "key": key} for key, name, formula, source in FACTORS]
    inputs = {"topology": spec.text, "traffic": pattern, "machine": machine_name,
              "router": doc["router"], "gamma_max": doc["channel_load"][pattern]}
    return rows, inputs
