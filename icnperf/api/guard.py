"""What every API function does around its work: warnings silenced for its own duration.

NumPy's and SciPy's overflow and invalid-value warnings would otherwise print in a
notebook beside a result that is refused when it is not finite anyway. The command line
silences them for the whole process (``icnperf.cli.root``); a library must not touch its
caller's warning filters, so the API silences them only while one of its functions runs.
"""

from __future__ import annotations

import functools
import warnings


def quiet(function):
    """``function`` run with RuntimeWarning ignored, the caller's filters restored after."""

    @functools.wraps(function)
    def run(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return function(*args, **kwargs)

    return run
