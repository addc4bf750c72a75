"""What every result of the API offers, whatever its command.

A result holds the document the command line prints as JSON (``to_dict`` returns it, equal
to ``--format json``'s output parsed), its rows in SI units (``rows``), and renders itself
as the command line's table (``table``) and CSV (``to_csv``) through :mod:`icnperf.reports`,
as a Plotly figure of its natural plot (``figure``), and as a pandas DataFrame when pandas
is installed (``to_pandas``). The command line calls :meth:`Result.render` with its
``--format`` and ``--wide``; nothing here prints.
"""

from __future__ import annotations

import copy
from typing import Iterable


class Result:
    """One command's result: ``command`` names it ("predict collective")."""

    command = ""
    rows_key = "rows"
    """The document's list of rows (``placements`` for NPB IS, ``machines`` for presets)."""

    def __init__(self, document: dict) -> None:
        from icnperf.reports.render import json_document

        self._document = json_document(document)

    @property
    def rows(self) -> list[dict]:
        """The rows of the command's JSON, values in SI units (seconds, bytes, bytes/s)."""
        return copy.deepcopy(self._document.get(self.rows_key, []))

    @property
    def inputs(self) -> dict:
        """What the result was asked for, as the JSON's ``inputs`` records it."""
        return copy.deepcopy(self._document.get("inputs", {}))

    def to_dict(self) -> dict:
        """The command line's ``--format json`` output for the same arguments, as a dict
        (``icnperf_version`` included)."""
        return copy.deepcopy(self._document)

    def render(self, fmt: str = "table", wide: bool = False) -> str | Iterable[str]:
        """The command line's output in ``fmt`` (table, json, csv): a string, or an
        iterator of chunks for an output streamed row by row."""
        raise NotImplementedError

    def table(self, wide: bool = False) -> str:
        """The text table the command line prints (``wide``: its ``--wide`` layout)."""
        return _joined(self.render("table", wide))

    def to_csv(self) -> str:
        """The command line's ``--format csv`` output."""
        return _joined(self.render("csv"))

    def figure(self):
        """A Plotly figure of this result's natural plot."""
        raise TypeError(f"{self.command} results have no figure; plot .rows yourself")

    def to_pandas(self):
        """The rows as a pandas DataFrame (pandas is an optional extra:
        ``pip install icnperf[pandas]``)."""
        try:
            import pandas
        except ImportError:
            raise ImportError("to_pandas needs pandas, an optional extra: pip install pandas"
                              " (or icnperf[pandas])") from None
        return pandas.DataFrame.from_records(self.rows)

    def _repr_text(self) -> str:
        return f"<icnperf {self.command} result: {len(self.rows)} rows>"

    def __repr__(self) -> str:
        return self._repr_text()


def _joined(text: str | Iterable[str]) -> str:
    return text if isinstance(text, str) else "".join(text)
