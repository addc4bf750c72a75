"""Helpers for the HTML page tests: the network resources a page would load."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

LOADING_ATTRIBUTES = {"src", "href", "srcset", "data", "poster", "action", "formaction"}


class _ResourceFinder(HTMLParser):
    """Collects every attribute that would make a browser fetch something, and the tags."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.loads: list[tuple[str, str, str]] = []
        self.tags: list[str] = []
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self._in_style = tag == "style"
        for name, value in attrs:
            if name in LOADING_ATTRIBUTES and value is not None:
                self.loads.append((tag, name, value))
            if name == "style" and value:
                self.styles.append(value)

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.styles.append(data)


def _network_loads(html: str) -> list[str]:
    """Attributes and CSS that point at the network ('//host', http:, https:, url(http...))."""
    finder = _ResourceFinder()
    finder.feed(html)
    bad = [f"<{tag} {name}={value!r}>" for tag, name, value in finder.loads
           if value.strip().lower().startswith(("http:", "https:", "//", "ftp:"))]
    for css in finder.styles:
        lowered = css.lower()
        if "url(" in lowered and ("http" in lowered or "//" in lowered) or "@import" in lowered:
            bad.append(f"style {css[:60]!r}")
    return bad


def _tag_count(html: str, tag: str) -> int:
    finder = _ResourceFinder()
    finder.feed(html)
    return finder.tags.count(tag)


@pytest.fixture
def tag_count():
    """A function: how many elements of a tag an HTML page has (script bodies not parsed)."""
    return _tag_count


@pytest.fixture
def network_loads():
    """A function: the network resource loads in an HTML page (should be [])."""
    return _network_loads
