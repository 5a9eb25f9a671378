"""What the README and the pages it links (docs/) promise, checked against the code: commands and options
that exist, the chapter table, the lab pair's shape and size, benchmark scripts and what results are
recorded; the README stays short (a newcomer reads it in three minutes) and its links resolve.

Each claim is read where it is written: the chapter table and the suite's times in the README, the
lab's recorded run, the pair and the engine's numbers in docs/benchmarks.md (`LAB_PAGE`)."""
import json
import re
import shlex
import statistics
from pathlib import Path

import pytest

from autograder.__main__ import build_parser
from autograder.paths import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text()
DOCS = REPO_ROOT / "docs"
# Every page a reader of the README is sent to, by its path in the repository.
PAGES = {"README.md": README, **{f"docs/{p.name}": p.read_text() for p in sorted(DOCS.glob("*.md"))}}
LAB_PAGE = "docs/benchmarks.md"          # chapter 12's recorded run, the CPU pair, the engine against Hugging Face
README_MAX_WORDS = 1200
AUTHORING_MAX_WORDS = 900                # the author's checklist stays one page; the rules live on the pages it links


def _flat(text: str) -> str:
    """`text` with every run of white space one space: a claim is found however its lines are wrapped."""
    return " ".join(text.split())


def _autograder_command_lines():
    """Every `python -m autograder ...` command line in the code blocks of the README and docs/."""
    for block in re.findall(r"```bash\n(.*?)```", "\n".join(PAGES.values()), flags=re.S):
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
        pytest.fail(f"documented command `python -m autograder {line}` is refused by the CLI (exit {exit_.code})")


def test_the_readme_is_short_and_its_links_resolve():
    """A newcomer reads the README in three minutes: what the course is, the two commands, the chapters,
    where to go next. Every page it links exists, and every page of docs/ is linked from it."""
    words = len(README.split())
    assert words < README_MAX_WORDS, f"the README has {words} words: move detail into a page of docs/"
    links = set(re.findall(r"\]\((docs/[\w.-]+\.md)\)", README))
    assert links and all((REPO_ROOT / link).is_file() for link in links), sorted(links)
    assert set(PAGES) - {"README.md"} <= links, f"docs pages the README does not link: {sorted(set(PAGES) - links - {'README.md'})}"
    for name, text in PAGES.items():                  # docs pages link each other by file name
        for target in re.findall(r"\]\(([\w-]+\.md)\)", text):
            assert (DOCS / target).is_file(), f"{name} links {target}, which is not in docs/"


def test_the_authoring_checklist_is_one_page_and_its_links_lead_somewhere():
    """docs/AUTHORING.md is a checklist an author reads in one page: one line a step, each linking to the
    page that holds its rules. Every link to a section of another page of docs/ names a heading there."""
    words = len(PAGES["docs/AUTHORING.md"].split())
    assert words < AUTHORING_MAX_WORDS, f"docs/AUTHORING.md has {words} words: move the detail to the page it links"

    def anchors(text):                             # GitHub's anchor of each heading
        return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
                for h in re.findall(r"^#+ (.+)$", text, flags=re.M)}
    for name, text in PAGES.items():
        for target, anchor in re.findall(r"\]\(([\w-]+\.md)?#([\w-]+)\)", text):
            page = f"docs/{target}" if target else name
            if page in PAGES:
                assert anchor in anchors(PAGES[page]), f"{name} links {target}#{anchor}, a heading {page} does not have"


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
    page = _flat(PAGES[LAB_PAGE])
    described = re.search(r"an? (\d+) x (\d+) target and a\s+(\d+) x (\d+) draft[^,]*, ([\d.]+) MB", page)
    assert described, f"{LAB_PAGE} no longer describes the CPU pair's shapes and size"
    t_layers, t_width, d_layers, d_width, mb = described.groups()
    assert (target["n_layer"], target["n_embd"]) == (int(t_layers), int(t_width))
    assert (draft["n_layer"], draft["n_embd"]) == (int(d_layers), int(d_width))
    size = sum(f.stat().st_size for f in weights.glob("*.safetensors")) / 1e6
    assert abs(size - float(mb)) < 0.1, f"weights are {size:.2f} MB, {LAB_PAGE} says {mb} MB"
    log = json.loads((weights / "train_log.json").read_text())
    trained = re.search(r"`(python -m specdec\.tiny_pair\.train[^`]*)` retrains it, (\d+)\s+minutes", page)
    assert trained, f"{LAB_PAGE} no longer says how to retrain the pair and how long it takes"
    assert trained.group(1) == log["command"], f"{LAB_PAGE}: {trained.group(1)!r}; the weights were made by {log['command']!r}"
    assert abs(int(trained.group(2)) - log["train_seconds"] / 60) < 1, (trained.group(2), log["train_seconds"])


def test_the_quoted_lab_and_engine_numbers_are_the_recorded_ones():
    """The paragraph on chapter 12's recorded CPU run and the engine's ratio to Hugging Face, in LAB_PAGE."""
    results = REPO_ROOT / "benchmarks" / "results"
    page = _flat(PAGES[LAB_PAGE])
    lab = json.loads((results / "lab12_cpu.json").read_text())
    quoted = re.search(r"best gamma = (\d+), a speedup of (\d+\.\d+) \(IQR (\d+\.\d+)\) against a\s+predicted (\d+\.\d+)",
                       page)
    assert quoted, f"{LAB_PAGE} no longer quotes the recorded CPU lab run"
    assert (int(quoted[1]), *map(float, quoted.groups()[1:])) == (
        lab["best_gamma"], lab["speedup_median"], lab["speedup_iqr"], lab["speedup_predicted"])
    minutes = re.search(r"Its full run takes about (\d+) minutes", page)
    assert minutes and abs(int(minutes[1]) - lab["seconds"] / 60) < 1, (minutes, lab["seconds"])
    from specdec.engine.lab_record import halves_lines, prediction_fit
    fit = prediction_fit(lab)["predicted_full"]
    errors = ", ".join(f"{round(100 * e):+d}".replace("+0", "0") for e in fit["errors"])
    quoted_errors = re.search(r"every gamma \(([-+\d, ]+) %\) and puts\s+the best gamma at (\d+), as measured", page)
    assert quoted_errors and quoted_errors[1] == errors and int(quoted_errors[2]) == fit["best_gamma"], (quoted_errors, errors)
    assert fit["fits"], fit
    ratio = {r["gamma"]: r["pass_ratio"] for r in lab["per_gamma"]}     # t_pass(gamma + 1) / t_pass(1)
    assert "on this CPU dips at four tokens" in page and ratio[3] < ratio[2], ratio
    cost_half = halves_lines(lab)[1]          # "cost half: ... error by gamma -2 %, +6 %, ...; best gamma 3"
    worst = max(abs(int(e)) for e in re.findall(r"([-+]\d+) %", cost_half))
    assert f"the cost model alone (fed the measured n_bar) is within {worst} % and names gamma = {lab['best_gamma']}" in page
    assert cost_half.endswith(f"best gamma {lab['best_gamma']}")
    acceptance_half = halves_lines(lab)[0]
    n_worst = max(abs(int(e)) for e in re.findall(r"([-+]\d+) %", acceptance_half))
    assert f"the acceptance forecast from the calibration prompts is off by {n_worst} % at most" in page, n_worst
    engine = (results / "engine_cpu.md").read_text()
    greedy = engine.split("### greedy")[1].split("###")[0]
    ratio = re.search(r"Ratio course / HF[^*]*\*\*([\d.]+) \(([\d.]+)-([\d.]+)\)\*\*", greedy)
    said = re.search(r"runs ([\d.]+) times as many tokens per second as Hugging Face's\s+greedy, range ([\d.]+)-([\d.]+)",
                     page)
    assert ratio and said and ratio.groups() == said.groups(), (ratio and ratio.groups(), said and said.groups())


@pytest.mark.parametrize("script", sorted(p.name for p in (REPO_ROOT / "benchmarks").glob("*.py")))
def test_every_benchmark_script_imports(script):
    """A script the README, docs/ or a chapter names must at least import (a moved module once broke lab12_cpu.py)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"_bench_{script[:-3]}", REPO_ROOT / "benchmarks" / script)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))


def test_benchmark_scripts_exist_and_no_gpu_result_is_claimed():
    for name, text in PAGES.items():
        for script in set(re.findall(r"benchmarks/\w+\.py", text)):
            assert (REPO_ROOT / script).is_file(), f"{name} names {script}, which does not exist"
    results = REPO_ROOT / "benchmarks" / "results"
    gpu = [p.name for p in results.glob("gpu_lab*") if "dry" not in p.name]
    claims = [name for name, text in PAGES.items() if re.search(r"no GPU result is\s+recorded yet", text, re.I)]
    if claims:
        assert not gpu, f"GPU results are recorded ({gpu}): update {claims}"
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
                     _flat(README))
    assert said, "the README no longer says how long the test suite takes"
    for quoted, kind in zip(map(int, said.groups()), ("full", "fast")):
        median = statistics.median(seconds[kind]) / 60
        assert abs(quoted - median) < 1, f"README says {quoted} min for the {kind} run, the record's median is {median:.1f}"
