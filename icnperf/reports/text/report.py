"""``icnperf report``: the machine report as one self-contained HTML page."""

from __future__ import annotations

from icnperf.errors import InputError
from icnperf.data.files import is_html_path, write_atomically


def write_report(machine_name: str, compare: tuple[str, ...], overrides: tuple[str, ...],
                 output: str, force: bool, validation: bool = True,
                 apps: tuple[str, ...] = ()) -> None:
    """Build the report and write it atomically to ``output`` (an .html path). Machines and
    application skeletons (``apps``) are loaded, and the output path checked, before any
    model runs."""
    if not is_html_path(output):
        raise InputError(f"-o {output}: the report is an HTML page; name the file *.html")
    from icnperf.data.skeleton import load_skeleton
    from icnperf.reports.machine_report import load_machines, report_html

    load_machines(machine_name, compare, overrides)
    skeletons = [load_skeleton(app) for app in apps]
    check_target(output, force)
    page = report_html(machine_name, compare, overrides, validation=validation,
                       skeletons=skeletons)
    write_atomically(output, page, force=force, html=True)


def check_target(output: str, force: bool) -> None:
    """Fail before the seconds of model work on an existing file or a missing directory
    (write_atomically checks again when it writes)."""
    from pathlib import Path

    target = Path(output)
    if target.exists() and not force:
        raise InputError(f"{target} exists; pass --force to overwrite it")
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise InputError(f"cannot write {target}: directory {directory} does not exist")
