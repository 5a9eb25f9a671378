"""What a learner may see of a graded notebook: no hidden test source, anywhere.

A graded notebook holds the hidden tests (nbgrader puts them back before grading), and
IPython tracebacks quote the lines around a failure, so a feedback page or a self-check
report made naively shows hidden test code. Here test cells keep only their visible part
(`strip_hidden`), tracebacks only the learner's own frames (`learner_traceback`), and every output
is scrubbed of any line of hidden test code, whatever printed it (`redact`). `HideHiddenTests`
applies all three before feedback is rendered (`nbgrader_config.py`); the self-check uses the
same functions. What a feedback page shows: docs/instructors.md, sections "4. Feedback" and
"5. The grade sheet".

    >>> src = "assert f(1) == 2\\n### BEGIN HIDDEN TESTS\\nassert f(123456) == 246912, 'big'\\n### END HIDDEN TESTS"
    >>> strip_hidden(src)
    'assert f(1) == 2\\n# (hidden tests run here when your work is graded)'
    >>> hidden = hidden_lines([src])
    >>> redact("line 3\\n---> 3 assert f(123456) == 246912, 'big'\\nok", hidden)
    'line 3\\n[a line of hidden test code was removed here]\\nok'
    >>> redact("      5 ### BEGIN HIDDEN TESTS", set())
    '[a line of hidden test code was removed here]'
"""
from __future__ import annotations

import re

from nbgrader.preprocessors import NbGraderPreprocessor

from ..notebooks import is_locked

_HIDDEN = re.compile(r"[ \t]*### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS[ \t]*", re.S)
_BLOCK = re.compile(r"### BEGIN HIDDEN TESTS\n?(.*?)### END HIDDEN TESTS", re.S)
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_CELL_FRAME = re.compile(r"(?:Cell In\s*\[(\d+)\]|Input In \[(\d+)\]|<ipython-input-(\d+)-)")
_MARKER = re.compile(r"###\s*(BEGIN|END) HIDDEN TESTS")
MIN_LINE = 12           # shorter hidden lines ("else:", ")") reveal nothing
REMOVED = "[a line of hidden test code was removed here]"
HIDDEN_NOTE = "# (hidden tests run here when your work is graded)"


def strip_hidden(source: str) -> str:
    """`source` with every hidden-test block replaced by one comment line."""
    return _HIDDEN.sub(HIDDEN_NOTE, source)


def hidden_lines(sources) -> set[str]:
    """Lines of hidden test code in `sources` (stripped, long enough to matter), minus any line
    that also appears outside the hidden blocks (an `import numpy as np` reveals nothing)."""
    hidden, visible = set(), set()
    for source in sources:
        for block in _BLOCK.findall(source):
            hidden.update(ln.strip() for ln in block.splitlines())
        visible.update(ln.strip() for ln in _HIDDEN.sub("", source).splitlines())
    return {ln for ln in hidden - visible if len(ln) >= MIN_LINE}


def notebook_hidden_lines(nb) -> set[str]:
    return hidden_lines(c.source for c in nb.cells if c.cell_type == "code")


def redact(text: str, hidden: set[str]) -> str:
    """`text` with each line that quotes hidden test code, or a hidden-tests marker (it tells where
    hidden tests start), replaced by a note, whatever printed it (student code can read the running
    cell through `linecache` or `In`)."""
    if not text:
        return text
    out = []
    for line in text.split("\n"):
        plain = _ANSI.sub("", line)
        if any(h in plain for h in hidden) or _MARKER.search(plain):
            out.append(REMOVED)
        else:
            out.append(line)
    return "\n".join(out)


def learner_traceback(output, learner_counts: set[int]) -> list[str]:
    """An IPython error output's traceback cut down to the frames in the learner's own cells
    (by execution count), followed by the error message."""
    frames = []
    for entry in output.get("traceback", [])[:-1]:
        match = _CELL_FRAME.search(_ANSI.sub("", entry))
        if match and int(next(g for g in match.groups() if g)) in learner_counts:
            frames.append(entry)
    message = f"{output.get('ename', 'Error')}: {output.get('evalue', '')}".rstrip(": ")
    if frames:
        return ["Traceback (your code only; the test code is not shown):"] + frames + [message]
    return [message]


def learner_counts(nb) -> set[int]:
    """Execution counts of the learner's own cells (solution cells and cells they added)."""
    counts = set()
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.get("execution_count") and not is_locked(cell):
            counts.add(int(cell.execution_count))
    return counts


def scrub(nb, hidden: set[str] | None = None):
    """Make a graded notebook safe to show its learner (in place; returns it)."""
    hidden = notebook_hidden_lines(nb) if hidden is None else hidden
    mine = learner_counts(nb)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if is_locked(cell):
            cell.source = strip_hidden(cell.source)
        for output in cell.get("outputs", []):
            kind = output.get("output_type")
            if kind == "error":
                if is_locked(cell):
                    output["traceback"] = learner_traceback(output, mine)
                output["traceback"] = [redact(t, hidden) for t in output.get("traceback", [])]
                output["evalue"] = redact(str(output.get("evalue", "")), hidden)
            elif kind == "stream":
                output["text"] = redact(output.get("text", ""), hidden)
            elif "data" in output:
                for mime in list(output["data"]):
                    if mime.startswith("text/") or mime in ("application/json", "application/javascript"):
                        value = output["data"][mime]
                        output["data"][mime] = redact(value if isinstance(value, str) else "".join(value), hidden)
    return nb


class HideHiddenTests(NbGraderPreprocessor):
    """nbgrader preprocessor for feedback: `scrub` the graded notebook before it is rendered."""

    def preprocess(self, nb, resources):
        return scrub(nb), resources
