"""The errors a user can cause; the CLI turns each into a one-line message and exit status 2."""


class IcnperfError(Exception):
    """Base of every error icnperf raises on purpose."""


class InputError(IcnperfError, ValueError):
    """Malformed or out-of-range input: a spec, a unit, a range, an option value, a machine file."""


class DataError(IcnperfError, ValueError):
    """A bundled or user-supplied data file that is missing, malformed or inconsistent."""
