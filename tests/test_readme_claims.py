"""What the README promises, checked against the code: commands and options that exist, the
chapter table, the lab pair's shape and size, benchmark scripts and what results are recorded."""
import json
import re
import shlex
from pathlib import Path

import pytest

from autograder.__main__ import build_parser
from autograder.notebooks import read
from autograder.paths import REPO_ROOT, SOLUTIONS_DIR

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


def test_the_chapter_table_names_each_chapter_and_its_exercises():
    rows = re.findall(r"^\| (\d\d) \| .*? \| (.*?) \|$", README, flags=re.M)
    chapters = sorted(p.stem for p in SOLUTIONS_DIR.glob("[0-9][0-9]_*.ipynb"))
    assert [n for n, _ in rows] == [c[:2] for c in chapters], "the README's chapter table and solutions/ differ"
    for (number, exercises), chapter in zip(rows, chapters):
        source = "\n".join(c.source for c in read(SOLUTIONS_DIR / f"{chapter}.ipynb").cells)
        for name in re.findall(r"`(\w+)`", exercises):
            assert re.search(rf"def {name}\b", source), f"README says chapter {number} asks for `{name}`; it does not"


def test_the_lab_pair_is_as_described():
    weights = REPO_ROOT / "specdec" / "tiny_pair" / "weights"
    target, draft = (json.loads((weights / f"{m}.json").read_text()) for m in ("target", "draft"))
    described = re.search(r"an (\d+) x (\d+) target and a\s+(\d+) x (\d+) draft[^,]*, ([\d.]+) MB", README)
    assert described, "the README no longer describes the CPU pair's shapes and size"
    t_layers, t_width, d_layers, d_width, mb = described.groups()
    assert (target["n_layer"], target["n_embd"]) == (int(t_layers), int(t_width))
    assert (draft["n_layer"], draft["n_embd"]) == (int(d_layers), int(d_width))
    size = sum(f.stat().st_size for f in weights.glob("*.safetensors")) / 1e6
    assert abs(size - float(mb)) < 0.1, f"weights are {size:.2f} MB, the README says {mb} MB"


def test_benchmark_scripts_exist_and_no_gpu_result_is_claimed():
    for script in set(re.findall(r"benchmarks/\w+\.py", README)):
        assert (REPO_ROOT / script).is_file(), f"README names {script}, which does not exist"
    results = REPO_ROOT / "benchmarks" / "results"
    gpu = [p.name for p in results.glob("gpu_lab*") if "dry" not in p.name]
    if "no GPU result is recorded yet" in README:
        assert not gpu, f"GPU results are recorded ({gpu}): update the README"
    for dry in results.glob("gpu_lab_dry*.md"):
        assert "DRY" in dry.read_text().upper(), f"{dry.name} does not say it is a dry run"
