"""User text that icnperf prints or writes: names checked on reading, and every value escaped
for the format it is written in.

A name (a machine's, a skeleton's, a phase's, a workload term's) is shown in table headers,
terminal lines, HTML pages and file comments. :func:`check_label` refuses, when the file is
read, a name holding a control character (a newline would split a header or start a new
line of a written TOML file), a bidirectional override or isolate (which reorders what a
terminal or browser shows), or more than :data:`MAX_LABEL` characters (a 10,000-character
name gave 10,000-column lines).

Writers escape whatever they write, names or not:

* :func:`toml_string` a TOML basic string (every control, bidirectional and non-character
  code as ``\\uXXXX``), :func:`toml_comment` a ``#`` comment line of any text;
* :func:`html_text` HTML text or attribute (``&<>"'`` as entities and the characters
  :func:`icnperf.data.files.printable` escapes as visible escapes);
* :func:`csv_cell` a CSV cell (control characters escaped; a cell a spreadsheet would run as
  a formula, starting ``= + - @`` and not a number, behind a leading apostrophe).

JSON needs nothing more than :func:`json.dumps` (which escapes control characters; the
bidirectional ones are escaped by ``ensure_ascii``).
"""

from __future__ import annotations

import html
import re
from typing import Any

from icnperf.data.files import printable
from icnperf.errors import InputError

__all__ = ["MAX_LABEL", "MAX_TEXT", "check_label", "csv_cell", "html_text", "toml_comment",
           "toml_string"]

MAX_LABEL = 200
"""Longest name accepted, in characters (the longest bundled name is under 60; a name is
printed whole in headers and table cells)."""

_UNSAFE_RE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff"
    "\ud800-\udfff]")
"""Control characters (C0, C1), zero-width and bidirectional marks, overrides and isolates,
the line and paragraph separators, the byte-order mark and lone surrogates."""


MAX_TEXT = 4000
"""Longest description or note accepted (wrapped when shown)."""


def check_label(text: Any, what: str = "the name", limit: int = MAX_LABEL) -> str:
    """``text`` unchanged if it can be a name (or, with ``limit`` :data:`MAX_TEXT`, a
    description or note); InputError naming the first character that cannot (escaped) or
    the length."""
    if not isinstance(text, str):
        raise InputError(f"{what} must be text, not {type(text).__name__}")
    match = _UNSAFE_RE.search(text)
    if match:
        raise InputError(f"{what} holds the control or bidirectional character "
                         f"{printable(match.group())} at position {match.start() + 1} "
                         "(names are shown on one line as written)")
    if len(text) > limit:
        raise InputError(f"{what} is {len(text):,} characters long, over {limit:,}")
    return text


def _unicode_escape(match: re.Match) -> str:
    return f"\\u{ord(match.group()):04x}"


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string: ``"`` and ``\\`` escaped, and every character of
    :data:`_UNSAFE_RE` as ``\\uXXXX`` (a lone surrogate, which TOML cannot hold, as
    U+FFFD)."""
    text = re.sub("[\ud800-\udfff]", "\ufffd", str(text))
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + _UNSAFE_RE.sub(_unicode_escape, text) + '"'


def toml_comment(text: str) -> str:
    """``text`` as one TOML comment line: ``# `` and the text with line breaks and control
    characters as visible escapes, so nothing after it can become a key."""
    return "# " + printable(text)


def html_text(text: Any) -> str:
    """``text`` for HTML (element text or a quoted attribute): control and bidirectional
    characters as visible escapes, then ``& < > " '`` as entities."""
    return html.escape(printable(text))


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(text: Any) -> str:
    """``text`` for a CSV cell (the csv module quotes it): control characters as visible
    escapes; text a spreadsheet would evaluate (starting with ``= + - @`` and not a number)
    behind an apostrophe."""
    text = printable(text)
    if len(text) > 1 and text.startswith(_FORMULA_START):
        try:
            float(text)
        except ValueError:
            return "'" + text
    return text
