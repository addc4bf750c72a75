"""Files in and out: telling a path from a bundled name, reading a user's file within limits,
writing output atomically, and showing user text safely on a terminal.

Inputs. Every file a user names (machine TOML, measurement CSV and its sidecar, OSU / IMB
output, cost and workload TOML) is read by :func:`read_text_file`:

* only a regular file is read: a directory, a FIFO, a device (``/dev/zero``) or a socket is
  a one-line error, found with ``stat`` before anything is opened (so a FIFO cannot block);
* at most :func:`max_input_bytes` bytes (64 MiB unless the environment variable
  ``ICNPERF_MAX_INPUT_BYTES`` says otherwise: a byte count, ``256MiB`` or ``1 GB``);
* UTF-8, with or without a byte-order mark.

TOML text is parsed by :func:`load_toml`, which refuses nesting deeper than
:data:`MAX_TOML_DEPTH` (arrays and tables inside one another, dotted keys included) before
the parser could exhaust Python's stack.

Outputs. :func:`write_atomically` writes a temporary file in the target's directory and
then links it into place (a hard link fails if the name exists, so two writers without
``force`` cannot both win) or, with ``force``, renames it over the target. The temporary
file is removed whatever goes wrong, KeyboardInterrupt included. A dangling symbolic link
counts as an existing file. The path ``-`` means standard output. SIGTERM and SIGHUP during
a write remove the temporary file too, then end the run with status 128 + the signal.

Names. File names are bytes on POSIX; one that is not UTF-8 reaches Python with surrogate
escapes. :func:`printable` turns such text (and control characters, which would move a
terminal's cursor or recolour it) into visible escapes, for messages, names derived from
paths, and anything printed to a terminal.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import stat
import sys
import threading
import tomllib
from pathlib import Path
from typing import Any, Iterable

from icnperf.errors import DataError, IcnperfError, InputError

MAX_INPUT_BYTES_VARIABLE = "ICNPERF_MAX_INPUT_BYTES"
"""The environment variable that sets the input size cap (bytes, or a size with a unit)."""

DEFAULT_MAX_INPUT_BYTES = 64 * 1024 * 1024
"""The input size cap when the environment does not set one: 64 MiB, a hundred times the
largest benchmark output the project has seen, and small enough to parse in seconds."""

MAX_TOML_DEPTH = 32
"""Deepest nesting of arrays and tables a TOML input may have (icnperf's own files use 3)."""

HTML_SUFFIXES = (".html", ".htm")

_READ_CHUNK = 1 << 20


# ------------------------------------------------------------------------------ names


def looks_like_path(name_or_path: str, suffix: str = ".csv") -> bool:
    """True when a name given on the command line is a file path rather than a bundled
    name: it ends in ``suffix`` or contains a path separator."""
    return (
        name_or_path.endswith(suffix)
        or "/" in name_or_path
        or os.sep in name_or_path
        or (os.altsep is not None and os.altsep in name_or_path)
    )


_UNPRINTABLE_RE = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    "\ud800-\udfff]"
)
"""Characters :func:`printable` escapes: C0 and C1 controls (newline apart, handled
separately), the line and paragraph separators, the bidirectional overrides and isolates
that reorder what a terminal shows, and lone surrogates (undecodable bytes of a file name)."""


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogate escape)
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def printable(text: Any, newlines: bool = False) -> str:
    """``text`` with control characters, bidirectional overrides and undecodable bytes
    written as visible escapes (``\\x1b``, ``\\u202e``, ``\\xff``); a path-like is decoded
    first. Newlines are kept when ``newlines`` (for whole outputs), escaped otherwise (for
    names and values on one line). Printable text comes back unchanged."""
    if isinstance(text, (bytes, os.PathLike)):
        text = os.fsdecode(text)
    text = str(text)
    if newlines:
        return _UNPRINTABLE_RE.sub(_escape, text)
    return _UNPRINTABLE_RE.sub(_escape, text).replace("\n", "\\n")


def _quoted(path: Any) -> str:
    return f"'{printable(path)}'"


# ------------------------------------------------------------------------------ inputs


def max_input_bytes() -> int:
    """The largest input file read, in bytes: ``ICNPERF_MAX_INPUT_BYTES`` (a whole number
    of bytes, or a size with a unit such as ``256MiB``) or :data:`DEFAULT_MAX_INPUT_BYTES`.
    InputError for a setting that is not a positive size."""
    raw = os.environ.get(MAX_INPUT_BYTES_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_MAX_INPUT_BYTES
    if raw.isascii() and raw.isdigit():
        value = float(raw)
    else:
        from icnperf.units import parse_quantity

        try:
            value = parse_quantity(raw, "size")
        except InputError as error:
            raise InputError(f"{MAX_INPUT_BYTES_VARIABLE}={printable(raw)}: {error}") from None
    if not value >= 1:
        raise InputError(f"{MAX_INPUT_BYTES_VARIABLE}={printable(raw)}: the input size cap "
                         "must be at least 1 byte")
    return int(min(value, sys.maxsize))


_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _refuse_unless_regular(mode: int, what: str, path: Any, error: type[IcnperfError]) -> None:
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise error(f"{what} {_quoted(path)} is a directory")
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    raise error(f"{what} {_quoted(path)} is {kind}; icnperf reads regular files only")


def _too_big(what: str, path: Any, size: str, limit: int, error: type[IcnperfError]):
    return error(f"{what} {_quoted(path)} is {size} bytes, over the {limit:,}-byte input "
                 f"limit; set {MAX_INPUT_BYTES_VARIABLE} (e.g. to 1GiB) to read it")


def read_text_file(path: str | os.PathLike, what: str,
                   error: type[IcnperfError] = DataError) -> str:
    """A user's UTF-8 text file (a byte-order mark dropped), or a one-line ``error`` naming
    ``what`` and the path: missing, unreadable, not a regular file, over
    :func:`max_input_bytes`, or not UTF-8."""
    limit = max_input_bytes()
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise error(f"{what} {_quoted(path)} not found") from None
    except OSError as err:
        raise error(f"cannot read {what} {_quoted(path)}: {err.strerror}") from None
    except ValueError:  # a NUL character, or a surrogate that is no escaped byte
        raise error(f"{what} {_quoted(path)} is not a valid file name") from None
    _refuse_unless_regular(info.st_mode, what, path, error)
    if info.st_size > limit:
        raise _too_big(what, path, f"{info.st_size:,}", limit, error)
    flags = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
             | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    try:
        handle = os.open(path, flags)
    except OSError as err:
        raise error(f"cannot read {what} {_quoted(path)}: {err.strerror}") from None
    chunks: list[bytes] = []
    total = 0
    try:
        # the name may have been swapped for a FIFO or a device since the stat above
        _refuse_unless_regular(os.fstat(handle).st_mode, what, path, error)
        while total <= limit:
            chunk = os.read(handle, min(_READ_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as err:
        raise error(f"cannot read {what} {_quoted(path)}: {err.strerror}") from None
    finally:
        os.close(handle)
    if total > limit:
        raise _too_big(what, path, "more than " + f"{limit:,}", limit, error)
    try:
        return b"".join(chunks).decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise error(f"{what} {_quoted(path)} is not UTF-8 text (byte {err.start})") from None


def path_exists(path: str | os.PathLike) -> bool:
    """Whether anything is at ``path``, a dangling symbolic link included; False for a path
    that cannot be examined (too long, NUL character)."""
    try:
        os.lstat(path)
    except (OSError, ValueError):
        return False
    return True


def bundled_file(folder, name: str, suffix: str = ".toml"):
    """The bundled file ``name + suffix`` of ``folder`` (a Path or an importlib resources
    folder) when it is a regular file, else None: a name the file system cannot take (too
    long for it, a NUL character) is not a bundled one either (``Path.is_file`` raised
    OSError for a 5,000-character preset or skeleton name)."""
    try:
        entry = folder.joinpath(name + suffix)
        return entry if entry.is_file() else None
    except (OSError, ValueError):
        return None


class TOMLProblem(ValueError):
    """TOML text that cannot be read: malformed, or nested deeper than MAX_TOML_DEPTH. Its
    message has no location prefix; callers add the file's name."""


_TOML_SCAN_RE = re.compile(
    r'''
      \#[^\n]*+                                      # a comment
    | """(?:[^"\\]|\\.|"(?!""))*+(?:"{3,5}|\Z)       # a multi-line basic string
    | \'\'\'(?:[^']|'(?!''))*+(?:'{3,5}|\Z)          # a multi-line literal string
    | "(?:[^"\\\n]|\\.)*+"?                          # a basic string
    | '[^'\n]*+'?                                    # a literal string
    | [\[\]{}]                                       # a bracket that counts
    ''',
    re.VERBOSE | re.DOTALL,
)
"""Tokens of a depth scan. Each alternative either matches or runs to the end of its line
(or of the text), so the scan is linear in the text's length whatever the text."""


def _bracket_depth(text: str, limit: int) -> int:
    """The deepest nesting of ``[`` / ``{`` outside strings and comments, stopping as soon
    as it passes ``limit``."""
    depth = deepest = 0
    for match in _TOML_SCAN_RE.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
        elif token in "]}":
            depth = max(depth - 1, 0)
    return deepest


def _document_depth(document: Any, limit: int) -> int:
    """The nesting of a parsed document (tables and arrays), without recursion, stopping
    as soon as it passes ``limit``."""
    deepest = 0
    stack = [(document, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            break
        stack.extend((child, depth + 1) for child in children)
    return deepest


def load_toml(text: str) -> dict[str, Any]:
    """TOML text (a leading byte-order mark allowed) as a dict; :class:`TOMLProblem` when it
    is malformed or nested deeper than :data:`MAX_TOML_DEPTH`."""
    text = text.removeprefix("\ufeff")
    too_deep = TOMLProblem(f"nested deeper than {MAX_TOML_DEPTH} levels (arrays or tables "
                           "inside one another)")
    if _bracket_depth(text, MAX_TOML_DEPTH) > MAX_TOML_DEPTH:
        raise too_deep
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise TOMLProblem(str(err)) from None
    except RecursionError:
        raise too_deep from None
    except ValueError:  # Python's bound on the digits of a whole number read from text
        raise TOMLProblem(f"a whole number of more than {sys.get_int_max_str_digits():,} "
                          "digits") from None
    if _document_depth(document, MAX_TOML_DEPTH) > MAX_TOML_DEPTH:
        raise too_deep
    return document


# ------------------------------------------------------------------------------ outputs


def is_html_path(path: str | os.PathLike | None) -> bool:
    """Whether an -o path names an HTML page (by its suffix)."""
    return path is not None and Path(path).suffix.lower() in HTML_SUFFIXES


def is_standard_output(path: str | os.PathLike | None) -> bool:
    """Whether an -o path is ``-``, standard output."""
    return path is not None and os.fspath(path) == "-"


def check_target(path: str | os.PathLike, force: bool) -> Path:
    """The directory an output ``path`` will be written in, after the checks that can fail
    before any work: an existing name (a dangling symbolic link counts) without ``force``,
    something other than a regular file with ``force``, a missing directory. The final
    write checks again, atomically."""
    target = Path(path)
    shown = printable(target)
    if path_exists(target):
        if not force:
            raise InputError(f"{shown} exists; pass --force to overwrite it")
        try:
            mode = os.stat(target).st_mode
        except (OSError, ValueError):
            mode = None  # a dangling link: --force replaces the link itself
        if mode is not None and not stat.S_ISREG(mode):
            raise InputError(f"{shown} exists and is not a regular file; icnperf replaces "
                             "only regular files, even with --force")
    directory = target.parent if str(target.parent) else Path(".")
    try:
        is_directory = stat.S_ISDIR(os.stat(directory).st_mode)
    except (OSError, ValueError):
        is_directory = False
    if not is_directory:
        raise InputError(f"cannot write {shown}: directory {printable(directory)} does not "
                         "exist")
    _check_name_length(target, directory, shown)
    return directory


def _check_name_length(target: Path, directory: Path, shown: str) -> None:
    """A file name longer than the directory's file system takes (NAME_MAX, 255 bytes on
    most) is refused before any work: report -o with a 300-character name ran its 12 s
    sweep and only then failed to write."""
    try:
        limit = os.pathconf(directory, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        limit = 255
    size = len(os.fsencode(target.name))
    if limit > 0 and size > limit:
        raise InputError(f"cannot write {shown[:80]}...: the file name has {size:,} bytes, more"
                         f" than the {limit} its file system takes")


def _create_temporary(directory: Path, name: str) -> tuple[int, Path]:
    """A new, empty file beside the target, created exclusively with the usual permissions
    (0666 less the umask, applied by the system)."""
    import secrets  # only writes need it (hmac and hashlib: about 3 ms of start-up)

    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
             | getattr(os, "O_BINARY", 0))
    for _ in range(100):
        candidate = directory / f".{name[:48]}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(candidate, flags, 0o666), candidate
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {directory}")


def _link_into_place(temporary: Path, target: Path) -> None:
    """Give the temporary file the target's name only if that name is free, atomically.

    A hard link fails when the name exists (a dangling link included), so of two writers
    exactly one succeeds. Where hard links are not supported, the name is claimed with an
    exclusive create and the temporary file renamed over the claim.
    """
    try:
        os.link(temporary, target)
        return
    except OSError as err:
        if isinstance(err, FileExistsError) or err.errno not in _NO_HARD_LINKS:
            raise
    claim = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    os.close(claim)
    try:
        os.replace(temporary, target)
    except BaseException:
        target.unlink(missing_ok=True)
        raise


_NO_HARD_LINKS = {getattr(errno, name) for name in
                  ("EPERM", "ENOTSUP", "EOPNOTSUPP", "EMLINK", "EXDEV", "ENOSYS")
                  if hasattr(errno, name)}
"""Errors of ``link`` that mean the file system has no hard links (not that the name is
taken)."""


def _encoded(text: str, shown: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as err:
        bad = printable(err.object[err.start])
        raise InputError(f"cannot write {shown}: the text holds {bad}, which is not a Unicode "
                         "character (a byte of a non-UTF-8 name or argument?)") from None


TERMINATING_SIGNALS = ("SIGTERM", "SIGHUP")
"""Signals that end a run (``timeout``, ``kill``, batch schedulers, a closed terminal) and,
during a write, first remove its temporary file as KeyboardInterrupt (SIGINT) does."""


class Terminated(SystemExit):
    """A terminating signal met during a write: exits with status 128 + the signal's number
    once the temporary file is gone, as the shell reports a process the signal killed."""


@contextlib.contextmanager
def _signals_as_exit():
    """During the block, SIGTERM and SIGHUP raise :class:`Terminated` (so ``finally``
    clauses run) instead of ending the process at once; the earlier handlers come back
    after. Only the main thread can set handlers; elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(number, _frame):
        raise Terminated(128 + number)

    previous = {}
    for name in TERMINATING_SIGNALS:
        number = getattr(signal, name, None)
        if number is not None:
            previous[number] = signal.signal(number, stop)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def write_atomically(path: str | os.PathLike, text: str | Iterable[str], *,
                     force: bool = False, html: bool = False) -> None:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all; ``-`` is standard output.
    ``text`` may be an iterable of chunks (a long JSON or CSV table produced row by row):
    each is written to the temporary file as it comes, so the whole never sits in memory,
    and an error while producing them leaves no file behind.

    A temporary file in the same directory is written, flushed to disk and then linked
    into place (refused atomically when the name exists, a dangling link included) or, with
    ``force``, renamed over the old file. On any failure, KeyboardInterrupt included, the
    temporary file is removed and the target left as it was. The file gets the usual
    permissions (0666 less the umask). An .html path is refused unless ``html`` (the text
    is an HTML page from icnperf.reports). Problems are one-line InputErrors.
    """
    chunks = [text] if isinstance(text, str) else text
    if is_standard_output(path):
        for chunk in chunks:
            sys.stdout.write(chunk)
        sys.stdout.flush()
        return
    target = Path(path)
    shown = printable(target)
    if not target.name:
        raise InputError("-o: empty file name")
    if not html and is_html_path(target):
        raise InputError(f"-o {shown}: this command writes text (table, JSON, CSV or TOML),"
                         " not an HTML report; choose another file name")
    directory = check_target(target, force)
    if isinstance(text, str):
        chunks = [_encoded(text, shown)]
    with _signals_as_exit():
        _write_through_temporary(directory, target, chunks, shown, force)


def _write_through_temporary(directory: Path, target: Path, chunks, shown: str,
                             force: bool) -> None:
    try:
        handle, temporary = _create_temporary(directory, target.name)
    except OSError as err:
        raise InputError(f"cannot write {shown}: {err.strerror or err}") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            for chunk in chunks:
                stream.write(chunk if isinstance(chunk, bytes) else _encoded(chunk, shown))
            stream.flush()
            os.fsync(stream.fileno())
        if force:
            os.replace(temporary, target)
        else:
            _link_into_place(temporary, target)
    except FileExistsError:
        raise InputError(f"{shown} exists; pass --force to overwrite it") from None
    except OSError as err:
        raise InputError(f"cannot write {shown}: {err.strerror or err}") from None
    finally:
        # whatever happened (KeyboardInterrupt too), the temporary name goes: after a
        # rename it is already gone, after a link the target keeps the data
        try:
            temporary.unlink(missing_ok=True)
        except OSError:
            pass
