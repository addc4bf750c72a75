"""Least-squares calibration: fit machine parameters to measured point-to-point numbers.

Pure: no file I/O, no printing. The measurements come in as :class:`Observations` (message
size, hops, the measured value, which quantity it is and which messaging interface measured
it); the machine is anything with ``require(path)`` and ``name`` (``icnperf.data.machine.Machine``);
the result is a :class:`FitResult` of numbers. Reading benchmark files is
``icnperf.data.measurements.bench``'s job, writing the calibrated machine ``icnperf.data.machine``'s;
``icnperf.data.calibrated`` joins the three.

**The model fitted is the model icnperf predicts with.** Every trial evaluation substitutes
the trial values into the machine and calls :func:`icnperf.model.network.p2p_table` (the
table ``icnperf predict p2p`` prints), reading the column of the measured quantity:

* ``latency``: ``latency_s``, the one-way zero-load latency :func:`network.latency`
  (half a ping-pong round trip: what osu_latency and IMB PingPong ``t[usec]`` report);
* ``bandwidth``: ``streaming_bandwidth_Bps``, one process streaming messages back to back,
  m / max(o, T_ser(m)) (:func:`network.streaming_bandwidth`; what osu_bw reports);
* ``pingpong_bandwidth``: ``bandwidth_Bps`` = m / latency (IMB PingPong ``Mbytes/sec``).

Each observation is evaluated with its own interface's software overhead (``mpi``,
``shmem`` or ``none``), so a table holding MPI and SHMEM rows is fitted in one go.

**What can be fitted** (:data:`FITTABLE`): the continuous parameters of the latency model,
``software.mpi_overhead``, ``software.shmem_overhead``, ``network.injection_latency``,
``network.ejection_latency``, ``network.router_latency``, ``network.link_latency``,
``network.link_bandwidth`` and ``network.host_bandwidth``. The packet format (flit size,
packet and header flits) and the switching mode are discrete and are set, not fitted. Any
other key is not used by the point-to-point model, so no measurement here can determine it.

**LogGP names** (:data:`ALIASES`) are accepted for machine keys, resolved the way
:func:`network.loggp` and :func:`network.from_loggp` relate the two views:

* ``o`` -> ``software.<api>_overhead``. The key holds the whole per-message overhead
  O = 2o (send + receive); LogGP's o is half of it.
* ``g`` -> ``software.<api>_overhead`` as well. The model has no gap parameter of its own:
  its gap is g = max(o, T_ser(1 B)) (:func:`network.loggp`), i.e. the overhead whenever the
  overhead paces a stream of small messages. ``o`` and ``g`` therefore name the same key and
  cannot both be fitted.
* ``G`` -> ``network.link_bandwidth``: G = P / ((P - H) · B_link), the link taken as the
  bottleneck channel (``from_loggp``'s default ``bottleneck="link"``).
* ``L`` -> ``network.injection_latency`` and ``network.ejection_latency`` **tied equal**
  (one fitted value set on both keys): L = t_inj + (h + 1)·t_router + h·t_link + t_ej +
  T_ser(1 B), and ``from_loggp`` splits its endpoint part evenly between injection and
  ejection. The parameter's label is ``network.injection_latency=network.ejection_latency``.

**Method.** ``scipy.optimize.least_squares`` (trust-region reflective) on the *relative*
residuals r_i = (predicted_i - measured_i) / measured_i, so a 1-byte latency and a 1-MiB
latency weigh alike (measurement noise is taken as proportional to the value). Robust loss
``soft_l1`` with ``f_scale`` = 0.05 by default: residuals up to about 5 % count
quadratically, larger ones (outliers, regimes the model lacks such as a rendezvous step)
only linearly. Parameters are fitted in a conditioned space: bandwidths (which must be
> 0) as ln(B / B_0), times (which must be >= 0) as t / t_0 with the bound t >= 0, where B_0,
t_0 are the starting values, so nanoseconds and GB/s are all of order one. The fit starts
from the machine's values and, for bandwidths, also from the slope of the largest messages'
latencies; the better converged start wins.

**Uncertainty.** cov = s² (JᵀJ)⁻¹ with J the Jacobian of the relative residuals at the
solution (central differences in the fit space) and s² = Σ r_i² / (n - p), transformed to SI
by the parameters' derivatives. 95 % intervals use Student's t with n - p degrees of
freedom: symmetric for times (clipped at 0), symmetric in ln B for bandwidths (so never
below 0). The covariance is the ordinary least-squares one even when the robust loss
down-weighted outliers (conservative then); it assumes the model is right and the errors
independent. With as many points as parameters the fit is exact and the errors and
intervals are NaN.

Errors (one-line :class:`~icnperf.errors.InputError`): fewer points than parameters, an
unknown or unfittable key, non-finite or non-positive measurements, a fit that does not
converge, and parameters the points cannot tell apart (a zero or singular Jacobian, e.g.
injection and ejection latency, which only ever appear as a sum).

The package is split in two; everything in ``__all__`` is re-exported here, so callers
write ``from icnperf.model import calibrate`` and ``calibrate.<name>``:

* ``problem``: :data:`QUANTITIES`, :data:`FITTABLE`, :data:`ALIASES`, :class:`Parameter`,
  :func:`resolve_parameters`, :class:`Observations`, :func:`observations` and
  :func:`predict` (the model's value of every point);
* ``least_squares``: :func:`fit` and :class:`FitResult` (values, standard errors, intervals,
  residuals), :data:`DEFAULT_LOSS`, :data:`DEFAULT_F_SCALE`.
"""

from __future__ import annotations

from icnperf.model.calibrate.least_squares import (
    DEFAULT_F_SCALE,
    DEFAULT_LOSS,
    FitResult,
    fit,
)
from icnperf.model.calibrate.problem import (
    ALIASES,
    FITTABLE,
    QUANTITIES,
    Observations,
    Parameter,
    observations,
    predict,
    resolve_parameters,
)

__all__ = [
    "ALIASES",
    "DEFAULT_F_SCALE",
    "DEFAULT_LOSS",
    "FITTABLE",
    "QUANTITIES",
    "FitResult",
    "Observations",
    "Parameter",
    "fit",
    "observations",
    "predict",
    "resolve_parameters",
]
