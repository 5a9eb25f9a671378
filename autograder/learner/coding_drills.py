"""Chapter 13's coding drills, read from its notebook and run against an answer file.

A coding drill is a solution cell `ex_drill_<name>` of the drills notebook: `load_drills` reads
its statement, its stub, the locked setup cells before it and its test cells, so the terminal
grades exactly what the notebook grades. `run_answer` runs a learner's .py file against those
tests in a fresh Python process in a scratch folder, with a time limit, and returns each test's
verdict (the hidden tests' code is never printed, only their messages); `format_result` makes
the report.

    >>> d = CodingDrill("speedup", "Exercise D.1: the speedup", 5, "speedup formula", "05", "", "def f():")
    >>> print(format_result(d, [{"test": "t1", "points": 1.0, "max_points": 1.0, "ok": True, "message": ""}], 75.0))
    Exercise D.1: the speedup
    <BLANKLINE>
      [PASS] t1 (1/1)
    <BLANKLINE>
    Result: 1 / 1 - passed
    Time: 1 min 15 s (suggested 5 min)
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .. import progress
from ..notebooks import grade_id_of, is_grade, is_locked, is_solution, nbgrader_meta
from ..errors import CourseError
from ..paths import drills_notebook

_PREFIX = "ex_drill_"
_RESULT_MARK = "@@drill-results@@"


# ---------------------------------------------------------------- the drills, read from the notebook
@dataclass
class CodingDrill:
    name: str
    title: str
    minutes: int | None
    topic: str
    chapter: str
    statement: str
    stub: str                                   # the def line and docstring, body `raise NotImplementedError`
    setup: list[str] = field(default_factory=list)
    tests: list[tuple[str, float, str]] = field(default_factory=list)     # (grade_id, points, source)
    hints: list[str] = field(default_factory=list)                        # the folded hints, in order (Markdown)


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def load_drills(path: Path | None = None) -> dict[str, CodingDrill]:
    """{name: CodingDrill} for every solution cell `ex_drill_<name>` of the drills notebook."""
    cells = json.loads(Path(path or drills_notebook()).read_text(encoding="utf-8"))["cells"]
    drills: dict[str, CodingDrill] = {}
    setup_so_far: list[str] = []
    current: CodingDrill | None = None
    statement, clock = "", ""
    for cell in cells:
        meta, src = nbgrader_meta(cell), _source(cell)
        if cell["cell_type"] == "markdown":
            if src.lstrip().startswith("### Exercise"):
                statement = src
            elif current is not None and not current.hints:
                current.hints = hints_of(src)
            continue
        if "start_drill(" in src and not meta:
            clock = src
        if is_solution(cell) and (grade_id_of(cell) or "").startswith(_PREFIX):
            name = grade_id_of(cell)[len(_PREFIX):]
            title = statement.splitlines()[0].lstrip("# ").strip() if statement else name
            minutes = re.search(r"suggested time (\d+) minutes", title)
            topic = re.search(r'topic="([^"]+)"', clock)
            chapter = re.search(r'chapter="(\d+)"', clock)
            # The solution notebook has the answer between markers; a bundle's student copy has the stub.
            head = re.split(r"### BEGIN SOLUTION|\n[ \t]*# YOUR CODE HERE", src)[0].rstrip()
            current = CodingDrill(name, title, int(minutes.group(1)) if minutes else None,
                                  topic.group(1) if topic else name, chapter.group(1) if chapter else "13",
                                  statement, head + "\n    raise NotImplementedError\n", list(setup_so_far))
            drills[name] = current
        elif is_grade(cell) and current is not None:
            current.tests.append((grade_id_of(cell), float(meta.get("points", 0)), src))
        elif is_locked(cell) and not is_grade(cell) and not is_solution(cell):
            setup_so_far.append(src)
            if current is not None:
                current.setup.append(src)
    return drills


def hints_of(markdown: str) -> list[str]:
    """The bodies of the folded hints (`<details><summary><b>Hint N</b>...`) of a Markdown cell.

    >>> hints_of("<details><summary><b>Hint 1</b> (click)</summary>\\n\\nLoop.\\n\\n</details>")
    ['Loop.']
    """
    found = re.findall(r"<details><summary><b>Hint[^<]*</b>[^<]*</summary>(.*?)</details>", markdown, flags=re.S)
    return [h.strip() for h in found]


# ---------------------------------------------------------------- running an answer file
_RUNNER = r'''
import contextlib, io, json, sys
ns = {"__name__": "__drill__"}
spec = json.load(open(sys.argv[1]))
results = []
def report(gid, points, ok, message):
    results.append({"test": gid, "points": points if ok else 0.0, "max_points": points, "ok": ok, "message": message})
try:
    for src in spec["setup"]:
        exec(compile(src, "<setup>", "exec"), ns)
    answer = open(spec["answer"], encoding="utf-8").read()
    exec(compile(answer, spec["answer"], "exec"), ns)
    missing = spec["name"] not in ns
except BaseException as err:
    for gid, points, _ in spec["tests"]:
        report(gid, points, False, f"your file did not run: {type(err).__name__}: {err}")
    missing = None
if missing:
    for gid, points, _ in spec["tests"]:
        report(gid, points, False, f"your file does not define {spec['name']}")
elif missing is False:
    for gid, points, src in spec["tests"]:
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                exec(compile(src, "<" + gid + ">", "exec"), ns)
        except NotImplementedError:
            report(gid, points, False, "not attempted yet (the function still raises NotImplementedError)")
        except BaseException as exc:
            report(gid, points, False, f"{type(exc).__name__}: {exc}")
        else:
            text = err.getvalue().strip()
            report(gid, points, not text, ("the test wrote to stderr: " + text[:500]) if text else "")
print("''' + _RESULT_MARK + r'''" + json.dumps(results))
'''


def run_answer(drill: CodingDrill, answer: Path, timeout: int = 120) -> list[dict]:
    """Run `answer` (a .py file) against the drill's tests in a fresh Python process."""
    answer = Path(answer).resolve()
    if not answer.is_file():
        raise CourseError(f"no such answer file: {answer}")
    with tempfile.TemporaryDirectory(prefix="course-drill-") as tmp:
        spec = Path(tmp) / "spec.json"
        spec.write_text(json.dumps({"name": drill.name, "answer": str(answer), "setup": drill.setup,
                                    "tests": drill.tests}), encoding="utf-8")
        env = dict(os.environ, MPLBACKEND="Agg", PYTHONWARNINGS="ignore")
        env[progress.ENV_VAR] = str(Path(tmp) / "ignored_log.jsonl")   # the tests' own clocks stay out of the log
        try:
            done = subprocess.run([sys.executable, "-c", _RUNNER, str(spec)], cwd=tmp, env=env, capture_output=True,
                                  text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return [{"test": gid, "points": 0.0, "max_points": pts, "ok": False,
                     "message": f"the tests did not finish within {timeout} s (an endless loop?)"}
                    for gid, pts, _ in drill.tests]
    for line in reversed(done.stdout.splitlines()):
        if line.startswith(_RESULT_MARK):
            return json.loads(line[len(_RESULT_MARK):])
    why = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return [{"test": gid, "points": 0.0, "max_points": pts, "ok": False, "message": f"the test run crashed: {why}"}
            for gid, pts, _ in drill.tests]


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "not timed (run `drill NAME` first to start the clock)"
    minutes, sec = divmod(int(round(seconds)), 60)
    return f"{minutes} min {sec:02d} s" if minutes else f"{sec} s"


def format_result(drill: CodingDrill, results: list[dict], seconds: float | None) -> str:
    got, full = sum(r["points"] for r in results), sum(r["max_points"] for r in results)
    lines = [f"{drill.title}", ""]
    for r in results:
        lines.append(f"  [{'PASS' if r['ok'] else 'FAIL'}] {r['test']} ({r['points']:g}/{r['max_points']:g})")
        if not r["ok"]:
            lines.extend("         " + ln for ln in r["message"].splitlines()[:20])
    suggested = f" (suggested {drill.minutes} min)" if drill.minutes else ""
    lines += ["", f"Result: {got:g} / {full:g} {'- passed' if got == full else '- not yet'}",
              f"Time: {_duration(seconds)}{suggested}"]
    return "\n".join(lines)
