"""Self-contained HTML pages: the machine report and the validation page.

``document`` turns titled sections (text, Plotly figures, tables, MathML) into one HTML file
with plotly.js embedded once, so a page opens offline and fetches nothing. ``figures`` holds
the shared figure styling; ``machine_report`` and ``validation_page`` build the sections from
the results icnperf.api hands them (api/machine_sections.py, api/validation_pages.py).
"""
