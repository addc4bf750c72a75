"""Claims of the NUDT topology paper (seeds/002_790e969e6b408e2e.txt), scalability section.

Jiang, Dong, Tang, Qi, ..., Pang, "Topologies of large-scale high-performance
interconnects" (NUDT). The sentences checked here are the 6D-torus example before Fig. 5
and the paragraph after Fig. 5 ("at ~10^5 endpoints SF needs 90 router ports and about
3,000 routers; DF about 50 ports and 26 % more routers than SF; MF only 36 ports and 33 %
more routers than SF"), plus the megafly paragraph ("with equal ports MF supports nearly
4x the dragonfly's size").

Stated figures are rounded in the paper, so the tolerance of a "about X" figure is half a
unit of its last stated digit (e.g. "about 3,000" -> +-500; "90" and "about 50" -> +-5).
"""

from __future__ import annotations

from functools import lru_cache

from icnperf.validation.claim import Claim

SOURCE = "NUDT topologies paper (seeds/002), scalability section, text under Fig. 5"
TORUS_SOURCE = "NUDT topologies paper (seeds/002), scalability section, 6D torus example"
SOURCE_FIG5 = "NUDT topologies paper (seeds/002), Fig. 5 and the text under it"
MEGAFLY_SOURCE = "NUDT topologies paper (seeds/002), megafly paragraph (Fig. 3)"
TARGET = 100_000
"""'10^5 scale' (10万量级) read as at least 100,000 endpoints."""

ROUTER_COUNT_REASON = (
    "the exact constructions at >=1e5 endpoints give {family} {routers:,} routers vs slim fly"
    " {sf:,} (+{excess:.0f} %), far from the paper's +{claimed} %; the paper's percentages"
    " are close to total router ports per endpoint instead (see"
    " nudt-{short}-ports-per-endpoint)"
)
DF_PORTS_REASON = (
    "by the paper's own formulas a balanced dragonfly spends (4p-1)/p router ports per"
    " endpoint (51/13 = 3.92 at the ~50-port design) and slim fly (3/2)k'/(k'/2) = 3, i.e."
    " +31 %, not +26 % (megafly's 2k/(k/2) = 4 does give the paper's +33 %); the exact"
    " designs at >=1e5 endpoints give the predicted value"
)


@lru_cache(maxsize=None)
def _design(family: str, dims: int = 3):
    from icnperf.model.topology.compare import design

    return design(family, TARGET, dims=dims)


def _torus(radix: int):
    from icnperf.model.topology.spec import parse_spec

    return parse_spec("torus:" + "x".join([str(radix)] * 6)).evaluate()


def _excess(family: str, attribute: str) -> float:
    """Percent by which ``family`` exceeds slim fly in ``attribute`` at 1e5 endpoints."""
    ours, sf = getattr(_design(family), attribute), getattr(_design("slimfly"), attribute)
    return 100.0 * (ours / sf - 1.0)


def _router_excess_reason(family: str, short: str, claimed: int) -> str:
    ours, sf = _design(family), _design("slimfly")
    return ROUTER_COUNT_REASON.format(family=family, routers=ours.routers, sf=sf.routers,
                                      excess=_excess(family, "routers"), claimed=claimed,
                                      short=short)


def _megafly_vs_dragonfly_size(radix: int = 36) -> float:
    """Endpoints of megafly k = radix/2 over the largest balanced dragonfly within radix."""
    from icnperf.model.topology.compare import largest_for_radix

    return (largest_for_radix("megafly", radix).endpoints
            / largest_for_radix("dragonfly", radix).endpoints)


def _fewest_routers_is_slimfly() -> float:
    counts = {f: _design(f).routers for f in ("fattree", "dragonfly", "megafly", "slimfly")}
    return 1.0 if min(counts, key=counts.get) == "slimfly" else 0.0


def _megafly_largest_at_equal_radix(radices=(36, 48, 64, 92, 128)) -> float:
    """1 when, at every radix, megafly supports more endpoints than FT, DF and SF."""
    from icnperf.model.topology.compare import RADIX_FAMILIES, largest_for_radix

    for radix in radices:
        sizes = {f: largest_for_radix(f, radix).endpoints for f in RADIX_FAMILIES}
        if max(sizes, key=sizes.get) != "megafly":
            return 0.0
    return 1.0


def _lowest_radix_is_megafly() -> float:
    radix = {f: _design(f).radix for f in ("fattree", "dragonfly", "megafly", "slimfly")}
    return 1.0 if min(radix, key=radix.get) == "megafly" else 0.0


CLAIMS = [
    Claim("nudt-torus6d-ports", TORUS_SOURCE, "6D torus router ports (12 links + 1 endpoint)",
          13, "ports", 0, "absolute", lambda: float(_torus(5).radix)),
    Claim("nudt-torus6d-k5-endpoints", TORUS_SOURCE, "6D torus, 5 routers per dimension",
          15_625, "endpoints", 0, "absolute", lambda: float(_torus(5).endpoints)),
    Claim("nudt-torus6d-k7-endpoints", TORUS_SOURCE, "6D torus, 7 routers per dimension",
          117_649, "endpoints", 0, "absolute", lambda: float(_torus(7).endpoints)),
    Claim("nudt-sf-radix", SOURCE, "slim fly router ports at 1e5 endpoints",
          90, "ports", 5, "absolute", lambda: float(_design("slimfly").radix)),
    Claim("nudt-sf-routers", SOURCE, "slim fly routers at 1e5 endpoints",
          3000, "routers", 500, "absolute", lambda: float(_design("slimfly").routers)),
    Claim("nudt-df-radix", SOURCE, "dragonfly router ports at 1e5 endpoints",
          50, "ports", 5, "absolute", lambda: float(_design("dragonfly").radix)),
    Claim("nudt-mf-radix", SOURCE, "megafly router ports at 1e5 endpoints",
          36, "ports", 0, "absolute", lambda: float(_design("megafly").radix)),
    Claim("nudt-df-routers-vs-sf", SOURCE, "dragonfly routers over slim fly's",
          26, "%", 5, "percentage-points", lambda: _excess("dragonfly", "routers"),
          discrepancy=lambda: _router_excess_reason("dragonfly", "df", 26),
          expected=100 * (8814 / 3362 - 1)),
    Claim("nudt-mf-routers-vs-sf", SOURCE, "megafly routers over slim fly's",
          33, "%", 5, "percentage-points", lambda: _excess("megafly", "routers"),
          discrepancy=lambda: _router_excess_reason("megafly", "mf", 33),
          expected=100 * (11_700 / 3362 - 1)),
    Claim("nudt-df-ports-per-endpoint", SOURCE + " (read as total ports per endpoint)",
          "dragonfly router ports per endpoint over slim fly's", 26, "%", 5,
          "percentage-points", lambda: _excess("dragonfly", "ports_per_endpoint"),
          discrepancy=DF_PORTS_REASON, expected=100 * ((51 / 13) / 3 - 1)),
    Claim("nudt-mf-ports-per-endpoint", SOURCE + " (read as total ports per endpoint)",
          "megafly router ports per endpoint over slim fly's", 33, "%", 5,
          "percentage-points", lambda: _excess("megafly", "ports_per_endpoint")),
    Claim("nudt-mf-vs-df-size", MEGAFLY_SOURCE,
          "megafly endpoints over the largest balanced dragonfly's within radix 36", 4, "x",
          0.5, "absolute", _megafly_vs_dragonfly_size),
    Claim("nudt-sf-fewest-routers", SOURCE, "slim fly needs the fewest routers of FT/DF/MF/SF",
          1, "holds", 0, "ordering", _fewest_routers_is_slimfly),
    Claim("nudt-mf-largest-at-equal-radix", SOURCE_FIG5,
          "at equal router radix (36..128) megafly supports the most endpoints of FT/DF/MF/SF",
          1, "holds", 0, "ordering", _megafly_largest_at_equal_radix),
    Claim("nudt-mf-lowest-radix", SOURCE, "megafly needs the lowest radix of FT/DF/MF/SF",
          1, "holds", 0, "ordering", _lowest_radix_is_megafly),
]
