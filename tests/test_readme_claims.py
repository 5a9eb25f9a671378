"""What the README promises, checked against the code: commands and options that exist, the
chapter table, the lab pair's shape and size, benchmark scripts and what results are recorded."""
import json
import re
import shlex
import statistics
from pathlib import Path

import pytest

from autograder.__main__ import build_parser
from autograder.paths import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text()


def _autograder_command_lines():
    """Every `python -m autograder ...` command line in the README's code blocks."""
    for block in re.findall(r"```bash\n(.*?)```", README, flags=re.S):
        for line in block.splitlines():
            line = line.split("#", 1)[0].strip()
            if "-m autograder" in line:
                yield line[line.index("-m autograder") + len("-m autograder"):].strip()


@pytest.mark.parametrize("line", sorted(set(_autograder_command_lines())))
def test_every_autograder_command_in_the_readme_parses(line):
    parser = build_parser()
    try:
        parser.parse_args(shlex.split(line))
    except SystemExit as exit_:                       # argparse's way of refusing
        pytest.fail(f"README command `python -m autograder {line}` is refused by the CLI (exit {exit_.code})")


def test_the_chapter_table_lists_the_course_map():
    """Each row of the README's chapter table lists its chapter's exercises (chapter 13: its coding and
    numeric drills) as the start page, the book and `drill --list` do: from autograder.course_map, with
    the same numbers and names, in the order of the chapter."""
    from autograder.course_map import course_map, exercise_list

    rows = re.findall(r"^\| (\d\d) \| .*? \| (.*?) \|$", README, flags=re.M)
    chapters = course_map()
    assert [n for n, _ in rows] == [c.number for c in chapters], "the README's chapter table and solutions/ differ"
    for (number, listed), chapter in zip(rows, chapters):
        assert listed == exercise_list(chapter), f"README, chapter {number}: write `{exercise_list(chapter)}`"


def test_the_lab_pair_is_as_described():
    weights = REPO_ROOT / "specdec" / "tiny_pair" / "weights"
    target, draft = (json.loads((weights / f"{m}.json").read_text()) for m in ("target", "draft"))
    described = re.search(r"an? (\d+) x (\d+) target and a\s+(\d+) x (\d+) draft[^,]*, ([\d.]+) MB", README)
    assert described, "the README no longer describes the CPU pair's shapes and size"
    t_layers, t_width, d_layers, d_width, mb = described.groups()
    assert (target["n_layer"], target["n_embd"]) == (int(t_layers), int(t_width))
    assert (draft["n_layer"], draft["n_embd"]) == (int(d_layers), int(d_width))
    size = sum(f.stat().st_size for f in weights.glob("*.safetensors")) / 1e6
    assert abs(size - float(mb)) < 0.1, f"weights are {size:.2f} MB, the README says {mb} MB"
    log = json.loads((weights / "train_log.json").read_text())
    trained = re.search(r"`(python -m specdec\.tiny_pair\.train[^`]*)` retrains it, (\d+)\s+minutes", README)
    assert trained, "the README no longer says how to retrain the pair and how long it takes"
    assert trained.group(1) == log["command"], f"README: {trained.group(1)!r}; the weights were made by {log['command']!r}"
    assert abs(int(trained.group(2)) - log["train_seconds"] / 60) < 1, (trained.group(2), log["train_seconds"])


def test_the_quoted_lab_and_engine_numbers_are_the_recorded_ones():
    results = REPO_ROOT / "benchmarks" / "results"
    lab = json.loads((results / "lab12_cpu.json").read_text())
    quoted = re.search(r"best gamma = (\d+), a speedup of (\d+\.\d+) \(IQR (\d+\.\d+)\) against a\s+predicted (\d+\.\d+)",
                       README)
    assert quoted, "the README no longer quotes the recorded CPU lab run"
    assert (int(quoted[1]), *map(float, quoted.groups()[1:])) == (
        lab["best_gamma"], lab["speedup_median"], lab["speedup_iqr"], lab["speedup_predicted"])
    minutes = re.search(r"Its full run takes about (\d+) minutes", README)
    assert minutes and abs(int(minutes[1]) - lab["seconds"] / 60) < 1, (minutes, lab["seconds"])
    engine = (results / "engine_cpu.md").read_text()
    greedy = engine.split("### greedy")[1].split("###")[0]
    ratio = re.search(r"Ratio course / HF[^*]*\*\*([\d.]+) \(([\d.]+)-([\d.]+)\)\*\*", greedy)
    said = re.search(r"runs ([\d.]+) times as many tokens per second as Hugging Face's\s+greedy, range ([\d.]+)-([\d.]+)",
                     README)
    assert ratio and said and ratio.groups() == said.groups(), (ratio and ratio.groups(), said and said.groups())


@pytest.mark.parametrize("script", sorted(p.name for p in (REPO_ROOT / "benchmarks").glob("*.py")))
def test_every_benchmark_script_imports(script):
    """A script the README or a chapter names must at least import (a moved module once broke lab12_cpu.py)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"_bench_{script[:-3]}", REPO_ROOT / "benchmarks" / script)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))


def test_benchmark_scripts_exist_and_no_gpu_result_is_claimed():
    for script in set(re.findall(r"benchmarks/\w+\.py", README)):
        assert (REPO_ROOT / script).is_file(), f"README names {script}, which does not exist"
    results = REPO_ROOT / "benchmarks" / "results"
    gpu = [p.name for p in results.glob("gpu_lab*") if "dry" not in p.name]
    if "no GPU result is recorded yet" in README:
        assert not gpu, f"GPU results are recorded ({gpu}): update the README"
    for dry in results.glob("gpu_lab_dry*.md"):
        assert "DRY" in dry.read_text().upper(), f"{dry.name} does not say it is a dry run"


def test_the_quoted_suite_times_are_the_recorded_runs():
    """README's times of `./course test` and of its fast tier are the medians of the runs recorded in
    benchmarks/results/suite.md (timed by hand: a test cannot time the suite it belongs to)."""
    rows = re.findall(r"^\| (full|fast) \| [^|]+ \| [^|]+ \| ([\d.]+) \|", (REPO_ROOT / "benchmarks" / "results" /
                                                                       "suite.md").read_text(), re.M)
    seconds = {kind: sorted(float(s) for k, s in rows if k == kind) for kind in ("full", "fast")}
    assert len(seconds["full"]) >= 2 and len(seconds["fast"]) >= 2, f"each needs a repeat: {seconds}"
    said = re.search(r"the whole suite takes about (\d+) minutes.{0,300}?the fast tier about (\d+) minutes",
                     README, re.S)
    assert said, "the README no longer says how long the test suite takes"
    for quoted, kind in zip(map(int, said.groups()), ("full", "fast")):
        median = statistics.median(seconds[kind]) / 60
        assert abs(quoted - median) < 1, f"README says {quoted} min for the {kind} run, the record's median is {median:.1f}"
