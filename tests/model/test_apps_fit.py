"""Fitting skeleton coefficients (model/apps/fit.py): known coefficients are recovered from
synthetic runs, within their 95 % intervals."""

from pathlib import Path

import numpy as np
import pytest

from icnperf.data.machine import load_machine
from icnperf.data.skeleton import parse_skeleton
from icnperf.errors import InputError
from icnperf.model.apps import timing
from icnperf.model.apps.fit import Run, fit_coefficients
from icnperf.model.collectives import Layout
from icnperf.model.topology.torus import balanced_torus_shape

MACHINE = load_machine("angara-4d")
FITME = Path(__file__).resolve().parents[1] / "data" / "apps" / "fitme.toml"
"""The skeleton fitted here and in tests/cli/test_cli_apps.py."""
SKELETON = parse_skeleton(FITME.read_text(), "fitme.toml")
TRUE = {"c_flops": 12.0, "c_halo": 8.0}


def layout_of(nodes):
    return Layout.torus(balanced_torus_shape(nodes, 4))


def synthetic_runs(noise: float, seed: int = 1):
    rng = np.random.default_rng(seed)
    truth = SKELETON.with_coefficients(TRUE)
    runs = []
    for nodes in (16, 64, 256, 1024, 4096):
        for n in (128, 512):
            t = timing.run(truth.with_parameters({"n": n}), MACHINE, layout_of(nodes)).total_s
            runs.append(Run(nodes, {"n": n}, t * (1 + noise * rng.standard_normal())))
    return runs


def test_exact_runs_give_back_the_coefficients():
    """Exact runs; whole flits make the halo time a staircase in c_halo (0.1-0.2 % stairs),
    which bounds how closely the coefficients come back."""
    fit = fit_coefficients(SKELETON, MACHINE, synthetic_runs(0.0), layout_of)
    assert fit.names == ("c_flops", "c_halo")
    assert fit.values[0] == pytest.approx(12.0, rel=1e-3)
    assert fit.values[1] == pytest.approx(8.0, rel=1e-2)
    assert fit.rms_relative_error < 1e-3
    assert float(fit.skeleton.coefficients["c_flops"]) == pytest.approx(fit.values[0])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_noisy_runs_recover_the_coefficients_within_their_intervals(seed):
    fit = fit_coefficients(SKELETON, MACHINE, synthetic_runs(0.02, seed), layout_of)
    for name, low, high, value in zip(fit.names, fit.low, fit.high, fit.values):
        assert low < TRUE[name] < high, (name, low, high)
        assert high - low < 0.5 * TRUE[name]
    assert fit.dof == 8 and 0.005 < fit.rms_relative_error < 0.05


def test_what_cannot_be_fitted_is_refused():
    runs = synthetic_runs(0.0)
    with pytest.raises(InputError, match="more runs than coefficients"):
        fit_coefficients(SKELETON, MACHINE, runs[:2], layout_of)
    with pytest.raises(InputError, match="unknown coefficient"):
        fit_coefficients(SKELETON, MACHINE, runs, layout_of, names=["c_nope"])
    idle = parse_skeleton('format = 1\nname = "idle"\n[coefficients]\nc = 1\n[[phase]]\n'
                          'name = "p"\nfixed = "1e-3"\n', "idle.toml")
    with pytest.raises(InputError, match="does not change any predicted time"):
        fit_coefficients(idle, MACHINE, [Run(16, {}, 1e-3)] * 3, layout_of)
