"""``icnperf report``: the machine report as one self-contained HTML page."""

from __future__ import annotations

from icnperf.errors import InputError
from icnperf.data.files import check_target, is_html_path, printable, write_atomically


def write_report(machine_name: str, compare: tuple[str, ...], overrides: tuple[str, ...],
                 output: str, force: bool, validation: bool = True,
                 apps: tuple[str, ...] = ()) -> None:
    """Build the report and write it atomically to ``output`` (an .html path). Machines and
    application skeletons (``apps``) are loaded, the output path checked (an existing name,
    a dangling symbolic link included, needs ``force``) and the work estimated against the
    limits (icnperf.data.limits) before any model runs."""
    if not is_html_path(output):
        raise InputError(f"-o {printable(output)}: the report is an HTML page; name the file"
                         " *.html")
    from icnperf.data.limits import skeleton_within_limits, within_limits
    from icnperf.data.skeleton import load_skeleton
    from icnperf.model.budget import report_estimate
    from icnperf.reports.machine_report import load_machines, node_layouts, report_html

    machines, names = load_machines(machine_name, compare, overrides)
    skeletons = [load_skeleton(app) for app in apps]
    check_target(output, force)
    within_limits(report_estimate([[layout.ranks for layout in node_layouts(machine)]
                                   for machine in machines], names))
    for skeleton in skeletons:
        skeleton_within_limits(skeleton, machines[0],
                               [layout.endpoints for layout in node_layouts(machines[0])],
                               command="report --app",
                               narrow="report a smaller machine (--set topology=...)")
    page = report_html(machine_name, compare, overrides, validation=validation,
                       skeletons=skeletons)
    write_atomically(output, page, force=force, html=True)
