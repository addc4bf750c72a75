"""The pages in headless Chromium: every Plotly figure renders as SVG, no console errors.

Uses Debian's chromium and chromium-driver (Service with the chromedriver on PATH, so
Selenium never downloads a browser or driver). Skipped when they are missing, except in CI
(environment variable CI set), where a missing browser is a failure.
"""

from __future__ import annotations

import os
import re
import shutil

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGE_TIMEOUT_S = 60


@pytest.fixture(scope="module")
def browser():
    driver_path = shutil.which("chromedriver")
    browser_path = shutil.which("chromium") or shutil.which("chromium-browser")
    missing = [name for name, path in (("chromedriver", driver_path),
                                       ("chromium", browser_path)) if path is None]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing.append("selenium (pip install -e '.[test]')")
    if missing:
        message = f"headless browser test needs {', '.join(missing)}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    options = webdriver.ChromeOptions()
    options.binary_location = browser_path
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--window-size=1300,1000"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    yield driver
    driver.quit()


def _figure_divs(page: str) -> int:
    return len(re.findall(r'<div id="figure-\d+" class="plotly-graph-div"', page))


DRAWN_MARKS = """return Array.from(document.querySelectorAll('.js-plotly-plot')).map(p =>
  Array.from(p.querySelectorAll('g.point path, path.js-line, g.points path.point'))
    .filter(e => { const b = e.getBBox(); return b.width > 0 || b.height > 0; }).length)"""
"""Per plot, the bars, lines and markers drawn with a non-empty box (a bar chart on the
wrong axis type renders its SVG but draws nothing)."""
COUNT_RENDERED = ("return Array.from(document.querySelectorAll('.js-plotly-plot'))"
                  ".filter(p => p.querySelector('svg.main-svg')).length")


def _load(browser, path, expected_figures: int, screenshot, timeout_s=PAGE_TIMEOUT_S):
    """Open a page, wait for its figures (or the timeout), screenshot it; returns (plots,
    rendered plots, drawn marks per plot, SEVERE console messages)."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get_log("browser")  # drop messages from earlier pages
    browser.get(path.as_uri())
    try:
        WebDriverWait(browser, timeout_s).until(
            lambda d: d.execute_script(COUNT_RENDERED) >= expected_figures)
    except TimeoutException:
        pass  # the counts below say what did render
    plots = browser.execute_script("return document.querySelectorAll('.js-plotly-plot').length")
    rendered = browser.execute_script(COUNT_RENDERED)
    marks = browser.execute_script(DRAWN_MARKS)
    severe = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    browser.save_screenshot(str(screenshot))
    return plots, rendered, marks, severe


def _open_and_check(browser, path, expected_figures: int, screenshot):
    plots, rendered, marks, severe = _load(browser, path, expected_figures, screenshot)
    assert plots == rendered == expected_figures
    assert all(n > 0 for n in marks), marks
    assert severe == []
    assert screenshot.stat().st_size > 10_000


def test_report_renders_in_chromium(browser, tmp_path):
    from icnperf.api.pages import report

    page = report("angara-4d", compare=("angara-3d",), validation=False)
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    expected = _figure_divs(page)
    assert expected == 10
    _open_and_check(browser, path, expected, tmp_path / "report.png")


def test_validation_page_renders_in_chromium(browser, tmp_path):
    from icnperf.api.pages import validate

    page = validate(simulation=True, ranges=False).html()
    path = tmp_path / "validation.html"
    path.write_text(page, encoding="utf-8")
    expected = _figure_divs(page)
    assert expected >= 5  # one scatter per paper (5 today) plus redrawn figures
    _open_and_check(browser, path, expected, tmp_path / "validation.png")


def test_the_checks_see_a_broken_page(browser, tmp_path):
    """The same checks on a page with a figure whose data is not valid JavaScript (a SEVERE
    error; that figure never renders) and a bar chart of categories forced onto a linear
    axis (renders its SVG, draws no bar): so the checks can fail."""
    import plotly.graph_objects as go

    from icnperf.reports.document import Section, render_document

    bars = go.Figure(go.Bar(x=["a", "b"], y=[1, 2]))
    bars.update_xaxes(type="linear")
    page = render_document("broken", [Section("s", figures=[
        go.Figure(go.Scatter(x=[1, 2], y=[1, 2])), go.Figure(go.Scatter(x=[1], y=[1])),
        bars])])
    page = re.sub(r'(Plotly\.newPlot\(\s*"figure-2",\s*)\[', r"\1[oops", page, count=1)
    path = tmp_path / "broken.html"
    path.write_text(page, encoding="utf-8")
    plots, rendered, marks, severe = _load(browser, path, 3, tmp_path / "broken.png",
                                           timeout_s=3)
    assert (plots, rendered) == (2, 2)
    assert marks[0] > 0 and marks[1] == 0
    assert severe and "SyntaxError" in " ".join(entry["message"] for entry in severe)
