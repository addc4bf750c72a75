"""Topology specs: ``family:body`` text <-> a registered Family and its parameters.

Grammar (documented in docs/cli-conventions.md)::

    spec   := family ":" body
    body   := radices | integer | pairs
    radices:= integer ["m"] ("x" integer ["m"])*   torus:16x16x32, mesh:8x8,
                                               torus:24x23x24x2mx3x2m (m: a mesh dimension)
    pairs  := name "=" value ("," name "=" value)*   dragonfly:p=4,a=8,h=4
    value  := integer | integer ("x" integer)+     a list: xgft:m=8x8,w=1x8
    simgrid:= integer ";" list ";" list ";" list   xgft:2;8,8;1,8;1,1 (SimGrid's FAT_TREE
                                                   topo_parameters: levels; m; w; p)

Each family declares which body forms it takes (``Family.positional``) and checks its own
feasibility; this module only tokenizes, looks up and enforces the global size limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from icnperf.errors import InputError
from icnperf.model.topology import dragonfly, fattree, rail, slimfly, torus, xgft
from icnperf.model.topology.base import MAX_ENDPOINTS, Family, Metrics

FAMILIES: dict[str, Family] = {
    family.name: family
    for module in (torus, fattree, xgft, rail, dragonfly, slimfly)
    for family in module.FAMILIES
}
"""Every registered family by name; the CLI's help and choices come from here."""

_INTEGER = re.compile(r"[0-9]{1,12}")
_NAME = re.compile(r"[a-z_]+")


@dataclass(frozen=True)
class TopologySpec:
    """A parsed, checked spec: the family and its parameters as Python ints/tuples."""

    family: Family
    params: dict

    @property
    def text(self) -> str:
        """The canonical spec text, in the form of the family's example.

        ``torus:16x16x32``, ``hypercube:10``, ``dragonfly:p=4,a=8,h=4``, ``megafly:k=18``.
        """
        if self.family.positional == "radices":
            wrap = self.params.get("wrap", (True,) * len(self.params["radices"]))
            return f"{self.family.name}:" + "x".join(
                f"{k}{'' if ring else 'm'}" for k, ring in zip(self.params["radices"], wrap))
        if "=" not in self.family.example:
            return f"{self.family.name}:{self.params[self.family.positional]}"
        body = ",".join(f"{k}=" + ("x".join(map(str, v)) if isinstance(v, tuple) else str(v))
                        for k, v in self.params.items()
                        if not (k == "p" and isinstance(v, tuple) and set(v) == {1}))
        return f"{self.family.name}:{body}"

    def evaluate(self, tree_routing: str | None = None) -> Metrics:
        """Metrics of this one configuration (0-d arrays); ``tree_routing`` (random or
        dmodk, xgft.TREE_ROUTINGS) picks a fat tree's up-port rule (default random)."""
        if tree_routing is None:
            return self.family.evaluate(**self.params)
        if tree_routing not in xgft.TREE_ROUTINGS:
            raise InputError(f"unknown tree routing {tree_routing!r}; choose one of "
                             f"{', '.join(xgft.TREE_ROUTINGS)}")
        if self.family.name in ("xgft", "rail"):
            return self.family.evaluate(**self.params, routing=tree_routing)
        if self.family.name in ("fattree", "clos"):
            evaluate = fattree.fattree if self.family.name == "fattree" else fattree.clos
            return evaluate(**self.params, up_port=tree_routing)
        raise InputError(f"tree routing applies to fattree, clos, xgft and rail, "
                         f"not {self.family.name}")


def _integer(token: str, spec: str, what: str) -> int:
    token = token.strip()
    if token.isdigit() and len(token) > 12:
        raise InputError(f"topology spec {spec!r}: {what} {token} is too large (at most 12 digits)")
    if not _INTEGER.fullmatch(token):
        raise InputError(f"topology spec {spec!r}: {what} {token!r} is not a positive integer")
    return int(token)


def _parse_pairs(body: str, family: Family, spec: str) -> dict:
    params = {}
    for item in body.split(","):
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not _NAME.fullmatch(name):
            raise InputError(
                f"topology spec {spec!r}: expected name=value, got {item!r}"
                f" (e.g. {family.example})"
            )
        if name not in family.parameters:
            raise InputError(
                f"topology spec {spec!r}: unknown parameter {name!r} for {family.name}"
                f" (known: {', '.join(family.parameters)})"
            )
        if name in params:
            raise InputError(f"topology spec {spec!r}: parameter {name!r} given twice")
        params[name] = (tuple(_integer(t, spec, name) for t in value.split("x"))
                        if "x" in value else _integer(value, spec, name))
    return params


def _parse_simgrid(body: str, spec: str) -> dict:
    """SimGrid's FAT_TREE ``topo_parameters`` "h;m1,..;w1,..;p1,.." as m, w, p tuples."""
    parts = body.split(";")
    if len(parts) != 4:
        raise InputError(f"topology spec {spec!r}: SimGrid form is levels;m1,m2;w1,w2;p1,p2"
                         " (e.g. xgft:2;8,8;1,8;1,1)")
    levels = _integer(parts[0], spec, "levels")
    lists = [tuple(_integer(t, spec, name) for t in part.split(","))
             for name, part in zip(("m", "w", "p"), parts[1:])]
    if any(len(values) != levels for values in lists):
        raise InputError(f"topology spec {spec!r}: {levels} levels need {levels} values in"
                         " each of m, w and p")
    return dict(zip(("m", "w", "p"), lists))


def _parse_body(body: str, family: Family, spec: str) -> dict:
    if ";" in body and family.name == "xgft":
        return _parse_simgrid(body, spec)
    if "=" in body:
        return _parse_pairs(body, family, spec)
    if family.positional == "radices":
        # a torus radix marked m (24x2mx3) is a mesh dimension: wrap False for it
        tokens = [t.strip() for t in body.split("x")]
        marked = tuple(family.name == "torus" and t.endswith("m") for t in tokens)
        radices = tuple(_integer(t[:-1] if m else t, spec, "radix")
                        for t, m in zip(tokens, marked))
        if any(marked):
            return {"radices": radices, "wrap": tuple(not m for m in marked)}
        return {"radices": radices}
    if family.positional is not None:
        return {family.positional: _integer(body, spec, family.positional)}
    raise InputError(
        f"topology spec {spec!r}: {family.name} takes name=value parameters"
        f" (e.g. {family.example})"
    )


def parse_spec(text: str) -> TopologySpec:
    """Parse and check ``family:body``; raise InputError naming the problem."""
    spec = text.strip()
    name, sep, body = spec.partition(":")
    family = FAMILIES.get(name.strip().lower())
    if family is None:
        raise InputError(
            f"unknown topology family {name.strip()!r} in {spec!r}"
            f" (known: {', '.join(sorted(FAMILIES))})"
        )
    if not sep or not body.strip():
        raise InputError(f"topology spec {spec!r} has no parameters (e.g. {family.example})")
    return checked_spec(family, _parse_body(body.strip(), family, spec), spec)


def checked_spec(family: Family, params: dict, text: str | None = None) -> TopologySpec:
    """A TopologySpec after the family's own checks and the global size limit."""
    family.check(params)
    if family.endpoints(params) > MAX_ENDPOINTS:
        spec = TopologySpec(family, params)
        raise InputError(f"topology spec {text or spec.text!r}: more than {MAX_ENDPOINTS:.0e}"
                         " endpoints, the largest network icnperf accepts")
    return TopologySpec(family, params)
