"""Run files of cutrace, read by its C++ decoder (docs/python.md).

    import cutrace
    r = cutrace.open("train.1234.ctrace")
    r.launches()            # one record per recorded launch (NumPy structured array)
    r.slices(launch=3).df   # the same table as a pandas DataFrame
    cutrace.analyze(r, launch=3).busy.groups
    cutrace.diff(a, b).rows

Every number comes from the C++ decoder (the _cutrace module); this file only names things and
turns the decoder's columns into arrays.
"""

import numpy as _np

from . import _cutrace

__all__ = ["open", "Run", "Table", "analyze", "diff"]

Completeness = _cutrace.Completeness
RunCompleteness = _cutrace.RunCompleteness
Analysis = _cutrace.Analysis
Diff = _cutrace.Diff


class Table(_np.recarray):
    """A NumPy structured array (fields also as attributes) with a pandas view."""

    def head(self, n=5):
        return self[:n]

    def to_pandas(self):
        import pandas  # only when asked: NumPy alone is enough for the arrays

        return pandas.DataFrame({name: self[name] for name in self.dtype.names})

    @property
    def df(self):
        return self.to_pandas()

    def __str__(self):
        """Aligned columns, the first and last rows of a long table (NumPy alone prints tuples)."""
        shown = list(range(len(self)))
        if len(shown) > 20:
            shown = shown[:10] + [None] + shown[-5:]
        cells = [list(self.dtype.names)]
        for i in shown:
            cells.append(["..."] * len(cells[0]) if i is None
                         else [_cell(self[name][i]) for name in self.dtype.names])
        widths = [max(len(line[c]) for line in cells) for c in range(len(cells[0]))]
        lines = ["  ".join(v.rjust(w) for v, w in zip(line, widths)).rstrip() for line in cells]
        return "\n".join(lines + ["(%d rows)" % len(self)])


def _cell(value):
    if isinstance(value, (float, _np.floating)):
        return "%.1f" % value
    return str(value)


def _table(columns):
    """The decoder's columns (name -> array, or list of str) as one Table."""
    arrays = {}
    for name, values in columns.items():
        if isinstance(values, list):
            text = _np.empty(len(values), dtype=object)
            text[:] = values
            values = text
        arrays[name] = values
    length = len(next(iter(arrays.values()))) if arrays else 0
    table = _np.empty(length, dtype=[(name, a.dtype) for name, a in arrays.items()])
    for name, a in arrays.items():
        table[name] = a
    return table.view(Table)


def _sequences(launch):
    if launch is None:
        return None
    if isinstance(launch, (int, _np.integer)):
        return [int(launch)]
    return [int(s) for s in launch]


class Run:
    """An opened run file. Opening reads its section headers and each launch's row headers
    one launch at a time; a launch's records are decoded when a table asks for them."""

    def __init__(self, path):
        self._file = _cutrace.RunFile(str(path))

    @property
    def path(self):
        return self._file.path

    @property
    def origin_ns(self):
        """The run axis' zero: host CLOCK_REALTIME ns when host_aligned, else globaltimer ns."""
        return self._file.origin_ns

    @property
    def host_aligned(self):
        return self._file.host_aligned

    @property
    def completeness(self):
        return self._file.completeness

    @property
    def problems(self):
        return list(self._file.problems)

    def launches(self):
        return _table(self._file.launches())

    def rows(self, launch=None):
        return _table(self._file.rows(_sequences(launch)))

    def slices(self, launch=None):
        return _table(self._file.slices(_sequences(launch)))

    def instants(self, launch=None):
        return _table(self._file.instants(_sequences(launch)))

    def flows(self, launch=None):
        return _table(self._file.flows(_sequences(launch)))

    def analyze(self, launch=None, **options):
        return analyze(self, launch=launch, **options)

    def __repr__(self):
        return "cutrace.Run(%r: %d launches)" % (self.path, len(self._file.launches()["sequence"]))


def open(path):  # noqa: A001 (the package's verb, as in `cutrace.open(path)`)
    return Run(path)


def _run(run):
    return run if isinstance(run, Run) else Run(run)


def analyze(run, launch=None, cta=None, bins=20, top=10, name=None):
    """Every analysis of docs/analysis.md for one launch (its sequence number; optional when the
    run holds one launch), as an Analysis object; str() gives trace-view analyze's tables."""
    return _cutrace.analyze(_run(run)._file, launch, cta, bins, top, name)


def diff(a, b, kernel=None, launch_a=None, launch_b=None):
    """Two runs (or paths) compared as trace-view diff compares them, as a Diff object."""
    return _cutrace.diff(_run(a)._file, _run(b)._file, kernel, launch_a, launch_b)
