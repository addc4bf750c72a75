"""Files in and out: telling a path from a bundled name, reading a user's text file, and
writing output atomically (a temporary file in the target's directory, then a rename).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from icnperf.errors import DataError, InputError


def looks_like_path(name_or_path: str, suffix: str = ".csv") -> bool:
    """True when a name given on the command line is a file path rather than a bundled
    name: it ends in ``suffix`` or contains a path separator."""
    return (
        name_or_path.endswith(suffix)
        or "/" in name_or_path
        or os.sep in name_or_path
        or (os.altsep is not None and os.altsep in name_or_path)
    )


def read_text_file(path: Path, what: str) -> str:
    """A UTF-8 text file's contents; a one-line DataError naming ``what`` otherwise."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise DataError(f"{what} {str(path)!r} not found") from None
    except IsADirectoryError:
        raise DataError(f"{what} {str(path)!r} is a directory") from None
    except UnicodeDecodeError as err:
        raise DataError(f"{path}: not UTF-8 text (byte {err.start})") from None
    except OSError as err:
        raise DataError(f"cannot read {what} {str(path)!r}: {err.strerror}") from None


HTML_SUFFIXES = (".html", ".htm")


def is_html_path(path: str | os.PathLike | None) -> bool:
    """Whether an -o path names an HTML page (by its suffix)."""
    return path is not None and Path(path).suffix.lower() in HTML_SUFFIXES


def write_atomically(path: str | os.PathLike, text: str, *, force: bool = False,
                     html: bool = False) -> None:
    """Write text to path via a temporary file in the same directory and a rename.

    Refuses to overwrite unless ``force``; nothing is left behind when writing fails. The
    file gets the usual permissions (0666 less the umask), not mkstemp's 0600. An .html
    path is refused unless ``html`` (the text is an HTML page from icnperf.reports).
    """
    target = Path(path)
    if not target.name:
        raise InputError("-o: empty file name")
    if not html and is_html_path(target):
        raise InputError(f"-o {target}: this command writes text (table, JSON, CSV or TOML),"
                         " not an HTML report; choose another file name")
    if target.exists() and not force:
        raise InputError(f"{target} exists; pass --force to overwrite it")
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise InputError(f"cannot write {target}: directory {directory} does not exist")
    try:
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{target.name}.",
                                             suffix=".tmp")
    except OSError as error:
        raise InputError(f"cannot write {target}: {error.strerror}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, target)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise InputError(f"cannot write {target}: {error.strerror}") from None
