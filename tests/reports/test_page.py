"""Fitting tables and text to a width (icnperf.reports.page), on tables small enough that
each expected layout is worked out by hand."""

from icnperf.reports.page import TERMINAL_WIDTH, Page, fit_table, wrap
from icnperf.reports.render import Column, aligned_table, number


def test_a_table_that_fits_is_the_natural_table():
    rows = [{"name": "a", "value": 1.5}, {"name": "bb", "value": 12}]
    columns = (Column("name", "name", overflow="note"), Column("value", "value", number()))
    lines, notes, following = fit_table(rows, columns, 20)
    assert lines == aligned_table(rows, columns).splitlines() == [
        "name  value", "----  -----", "a       1.5", "bb       12"]
    assert (notes, following) == ([], 1)


def test_note_column_keeps_numbers_and_equal_texts_share_one():
    rows = [{"k": "a", "s": "x" * 30}, {"k": "b", "s": "y" * 30}, {"k": "c", "s": "x" * 30}]
    columns = (Column("k", "key"), Column("s", "source", overflow="note"))
    lines, notes, following = fit_table(rows, columns, 20, first=4)
    assert lines == ["key  source", "---  ------", "a    [4]", "b    [5]", "c    [4]"]
    assert notes == [("source", [(4, "x" * 30), (5, "y" * 30)])]
    assert following == 6


def test_a_long_shared_beginning_goes_to_one_note_on_the_header():
    rows = [{"point": "results/osu_latency.txt, line 3", "v": 1},
            {"point": "results/osu_latency.txt, line 10", "v": 2}]
    columns = (Column("point", "point", overflow="note"), Column("v", "value", number()))
    lines, notes, _ = fit_table(rows, columns, 20)
    assert lines == ["point [1]  value", "---------  -----", "line 3         1",
                     "line 10        2"]
    assert notes == [("point", [(1, "every value in this column begins "
                                    "'results/osu_latency.txt,'")])]


def test_wrap_column_takes_the_room_left_and_breaks_between_words():
    rows = [{"name": "a", "description": "one two three four five six"}]
    columns = (Column("name", "name"), Column("description", "description", overflow="wrap"))
    lines, _, _ = fit_table(rows, columns, 20)      # room: 20 - 4 - 2 = 14 columns
    assert lines == ["name  description", "----  -------------", "a     one two three",
                     "      four five six"]


def test_headers_wrap_to_their_longest_word():
    rows = [{"a": 0.1, "b": 7.5}]
    columns = (Column("a", "offered rate", number()), Column("b", "sim avg latency", number()))
    lines, _, _ = fit_table(rows, columns, 20)
    assert lines == ["offered  sim avg", "   rate  latency", "-------  -------",
                     "    0.1      7.5"]


PANEL_ROW = [{"r": 9, "a": 1, "b": 2, "c": 3, "d": 4}]


def _panel_columns(**with_previous):
    return (Column("r", "rate", number(), keep=True),
            *(Column(key, header, number(), with_previous=with_previous.get(key, False))
              for key, header in zip("abcd", ("alphabet", "bacteria", "calendar",
                                              "dinosaur"))))


def test_panels_repeat_the_kept_column_and_balance_their_widths():
    # first fit would put three columns in the first panel (34 wide) and one in the second;
    # the widest of two panels is narrowest with two columns each (24)
    lines, _, _ = fit_table(PANEL_ROW, _panel_columns(), 40)
    assert lines == ["rate  alphabet  bacteria", "----  --------  --------",
                     "   9         1         2", "",
                     "rate  calendar  dinosaur", "----  --------  --------",
                     "   9         3         4"]


def test_a_column_marked_with_previous_stays_in_its_panel():
    lines, _, _ = fit_table(PANEL_ROW, _panel_columns(c=True), 30)
    headers = [line for line in lines if line.startswith("rate")]
    assert headers == ["rate  alphabet", "rate  bacteria  calendar", "rate  dinosaur"]
    assert all(len(line) <= 30 for line in lines)


def test_wrap_breaks_between_words_only():
    assert wrap("aa bb cc", 5, "- ", "  ") == ["- aa", "  bb", "  cc"]
    assert wrap("a-very-long-word", 5) == ["a-very-long-word"]
    assert wrap("x " * 80, None) == ["x " * 80]


def test_page_notes_numbered_on_from_the_table_or_listed_when_wide():
    rows = [{"k": "a", "s": "a source too long to stay in the table " * 3}]
    columns = (Column("k", "key"), Column("s", "source", overflow="note"))
    page = Page()
    page.table(rows, columns)
    page.blank()
    page.notes("notes", ["first", "second"])
    assert page.text().splitlines()[:3] == ["key  source", "---  ------", "a    [1]"]
    assert page.text().endswith("notes:\n  [2] first\n  [3] second\n")
    assert all(len(line) <= TERMINAL_WIDTH for line in page.text().splitlines())

    wide = Page(wide=True)
    wide.table(rows, columns)
    wide.blank()
    wide.notes("notes", ["first", "second"])
    assert wide.text() == aligned_table(rows, columns) + "\n\nnotes:\n  - first\n  - second\n"


def test_wide_characters_count_two_columns_when_wrapping():
    """Japanese text (East Asian wide: two columns each, no spaces between words) wraps by
    display width, breaking between characters; no character is lost."""
    from icnperf.reports.page import display_width, wrap

    text = "quoted 'パケットの最大サイズは2048バイトで、8バイトを1ラインとして伝送' in 2012"
    assert display_width("パケ") == 4 and display_width("ab") == 2
    lines = wrap(text, 20, "  ")
    assert all(display_width(line) <= 20 for line in lines)
    assert "".join(line.strip().replace(" ", "") for line in lines) == text.replace(" ", "")
    assert len(lines) > 1
