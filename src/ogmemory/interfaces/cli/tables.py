"""Tables that read at any terminal width: what every listing command prints.

A rich table left to itself keeps its unwrappable columns (ids, pointers, dates) whole and takes
the width it lacks from the others, down to one character: at 80 columns a search printed its
text three letters a line and ``graph entities`` one letter a line. ``Listing`` measures its
cells when it is printed and chooses between two layouts:

- a **grid** (the usual boxed table) when every column gets at least its longest word, and each
  prose column (``PROSE``: the text, summary, fact, message, ...) at least ``TEXT_MIN`` cells or
  all of its text; ids, pointers and dates keep their width, the rest goes to the prose;
- otherwise **stacked**: one line of the short fields per record, aligned when they fit, then
  each prose field on its own lines below, indented, with the whole width to wrap in.

Either way no id, pointer or date is broken inside (a word longer than the terminal is the only
thing folded), and ``--json`` never comes here.

>>> import io
>>> from rich.console import Console
>>> rows = [("m_1a2b3c4d5e6f", "I prefer Python over Java.")]
>>> console = Console(width=32, file=io.StringIO(), record=True)
>>> console.print(Listing("1 memory", ("ID", "Text"), rows))
>>> [line.rstrip() for line in console.export_text().splitlines()]
['1 memory', 'ID', '    Text', 'm_1a2b3c4d5e6f', '    I prefer Python over Java.']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

__all__ = ["PROSE", "TEXT_MIN", "UNWRAPPED", "Listing"]

#: Columns whose values are copied whole (ids, pointers, dates): never wrapped.
UNWRAPPED = ("ID", "Evidence", "Pointer", "Date")

#: Columns of running text: they get what width the others leave, and below it their own lines.
PROSE = (
    "Text",
    "Summary",
    "Fact",
    "Message",
    "Value",
    "Title",
    "Problem",
    "Before → after",
    "Last error",
    "Path",
    "File",
)

#: The fewest cells a prose column may have in a grid (fewer: the listing is stacked).
TEXT_MIN = 30

#: A column whose every value is this short is never wrapped (``assistant (Melanie)`` stays whole).
SHORT = 20

#: A longer word may be folded in a grid column (a URL must not widen its column to 200).
WORD_CAP = 24

#: What a grid costs beyond its cells: a border and a padding cell either side of each column.
PER_COLUMN, PER_TABLE = 3, 1

#: The indentation of a prose field under its record's line in the stacked layout.
INDENT = 4


class Listing:
    """Records as a rich renderable that lays itself out for the width it is printed in.

    ``no_wrap`` names columns whose values are never wrapped (ids, pointers, dates); ``prose``
    the columns of running text (default: those named in ``PROSE``), and a column that is both
    (a path) is never wrapped in a grid and goes below in the stacked layout; ``cut`` cuts
    prose to one line with an ellipsis instead of wrapping it (a listing whose ``show`` command
    has it all).
    Cells are plain text: user content is never read as markup.
    """

    def __init__(
        self,
        title: str,
        columns: Sequence[str],
        rows: Iterable[Sequence[object]],
        *,
        no_wrap: Iterable[str] = (),
        prose: Iterable[str] | None = None,
        cut: bool = False,
    ) -> None:
        self.title = title
        self.columns = list(columns)
        self.rows = [["" if cell is None else str(cell) for cell in row] for row in rows]
        keep = set(no_wrap)
        texts = set(PROSE if prose is None else prose)
        self.keep = [name in keep for name in self.columns]
        self.prose = [name in texts for name in self.columns]
        self.cut = cut

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        widths = self.fit(options.max_width)
        if widths is not None:
            yield self.grid(widths)
        else:
            yield from self.stacked(options.max_width)

    # ------------------------------------------------------------------ measuring

    def _cells(self, i: int) -> Iterator[str]:
        yield self.columns[i]
        for row in self.rows:
            yield row[i]

    def natural(self, i: int) -> int:
        """The width column ``i`` needs to show every value on one line."""
        return max(cell_len(line) for cell in self._cells(i) for line in cell.splitlines() or [""])

    def floor(self, i: int) -> int:
        """The narrowest column ``i`` may be: all of it when it is kept whole or short, else its
        longest word (at most ``WORD_CAP``, a header word always)."""
        natural = self.natural(i)
        if self.keep[i] or natural <= SHORT:
            return natural
        words = [cell_len(w) for cell in self._cells(i) for w in cell.split()] or [0]
        heading = max((cell_len(w) for w in self.columns[i].split()), default=0)
        return max(heading, min(max(words), WORD_CAP))

    def fit(self, width: int) -> list[int] | None:
        """The grid's column widths for ``width`` cells, or ``None`` when a column would get
        less than its floor (a prose column: less than ``TEXT_MIN`` or all its text)."""
        natural = [self.natural(i) for i in range(len(self.columns))]
        want = [self.floor(i) for i in range(len(self.columns))]
        for i, is_prose in enumerate(self.prose):
            if is_prose:
                want[i] = max(want[i], min(natural[i], TEXT_MIN))
        room = width - PER_TABLE - PER_COLUMN * len(self.columns) - sum(want)
        if room < 0:
            return None
        return _spread(want, natural, room)

    # ------------------------------------------------------------------ layouts

    def grid(self, widths: list[int]) -> Table:
        """The boxed table, each column exactly ``widths[i]`` wide."""
        out = Table(title=Text(self.title), title_justify="left")
        for i, name in enumerate(self.columns):
            one_line = self.keep[i] or (self.cut and self.prose[i])
            out.add_column(
                name,
                width=widths[i],
                no_wrap=one_line,
                overflow="ellipsis" if one_line else "fold",
            )
        for row in self.rows:
            out.add_row(*(Text(cell) for cell in row))
        return out

    def stacked(self, width: int) -> Iterator[Text | Padding]:
        """A title, a legend, then per record a line of its short fields and its prose below."""
        below = self._below(width)
        short = [i for i in range(len(self.columns)) if i not in below]
        pads = self._pads(short)
        aligned = _line_width(pads) <= width

        def line(cells: list[str]) -> str:
            if not aligned:
                return "  ".join(cells)
            padded = (c + " " * (pad - cell_len(c)) for c, pad in zip(cells, pads, strict=True))
            return "  ".join(padded).rstrip()

        yield Text(self.title)
        legend = line([self.columns[i] for i in short])
        yield Text(legend, style="dim", no_wrap=True, overflow="ellipsis")
        for i in below:
            yield Padding(Text(self.columns[i], style="dim"), (0, 0, 0, INDENT))
        labelled = len(below) > 1
        for row in self.rows:
            yield Text(line([row[i] for i in short]), style="bold")
            for i in below:
                text = " ".join(row[i].split()) if self.cut else row[i].strip()
                if text and text != "-":
                    yield self._prose(f"{self.columns[i]}: {text}" if labelled else text)

    def _pads(self, short: list[int]) -> list[int]:
        """The widths the short fields are padded to: each column's natural width, but the
        last one's values only (nothing follows it; its heading may be cut in the legend)."""
        pads = [self.natural(i) for i in short]
        if short:
            last = short[-1]
            pads[-1] = max((cell_len(row[last]) for row in self.rows), default=0)
        return pads

    def _below(self, width: int) -> list[int]:
        """The columns printed under their record's line: the prose, and then, widest first,
        the long wrappable ones until the others fit on one aligned line."""
        below = {i for i, is_prose in enumerate(self.prose) if is_prose}
        while True:
            short = [i for i in range(len(self.columns)) if i not in below]
            if _line_width(self._pads(short)) <= width:
                break
            movable = [i for i in short if not self.keep[i] and self.natural(i) > SHORT]
            if not movable:
                break
            below.add(max(movable, key=self.natural))
        return sorted(below)

    def _prose(self, text: str) -> Padding:
        body = Text(text, no_wrap=self.cut, overflow="ellipsis" if self.cut else "fold")
        return Padding(body, (0, 0, 0, INDENT))


def _line_width(widths: list[int]) -> int:
    """How wide fields of these widths are on one line, two spaces apart."""
    return sum(widths) + 2 * max(len(widths) - 1, 0)


def _spread(want: list[int], natural: list[int], room: int) -> list[int]:
    """``want`` widened by up to ``room`` cells toward the natural widths, fairly: a column
    that lacks little (a date range) gets all of it, the long ones share what is left
    equally.

    >>> _spread([10, 30], [17, 90], 20)
    [17, 43]
    """
    widths = list(want)
    lacking = sorted((n - w, i) for i, (n, w) in enumerate(zip(natural, want, strict=True)))
    lacking = [(lack, i) for lack, i in lacking if lack > 0]
    for k, (lack, i) in enumerate(lacking):
        given = min(lack, room // (len(lacking) - k))
        widths[i] += given
        room -= given
    return widths
