"""The chapters are written in the course's own words.

`../shared/tools/copycheck.py` (outside this repository, next to the reference texts the course
was built from) lists every run of N or more consecutive words that a notebook's Markdown in
`solutions/` shares with a reference text. At 12 words, the only runs allowed are the ones below:
exercise signatures and titles of cited papers, which must stay word for word.

Skipped, with the reason, where the tool or the reference texts are not present (a fresh clone
or CI has neither).
"""
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT.parent / "shared" / "tools" / "copycheck.py"
REFERENCES = ROOT.parent / "shared" / "reference"        # where the tool looks: <tool>/../reference
MIN_WORDS = 12

# Phrases that may repeat a reference text, written as the tool prints runs (lower case, punctuation,
# formulas and code spans removed). A reported run is allowed when, with these phrases cut out, no
# stretch of MIN_WORDS words is left. Keep it short: exercise signatures and cited titles only.
ALLOWED = [
    # titles of the two founding papers, cited in chapters 01-05 and later
    "fast inference from transformers via speculative decoding",
    "accelerating large language model decoding with speculative sampling",
    # chapter 05's three signatures, shown together in the exercise statement
    "expected tokens alpha gamma",
    "speedup alpha gamma c parallel false v 0 0",
    "best gamma alpha c max gamma parallel false v 0 0",
]


def _allowed(run: str) -> bool:
    text = f" {run.strip()} "
    for phrase in ALLOWED:
        text = text.replace(f" {phrase} ", " | ")
    return all(len(part.split()) < MIN_WORDS for part in text.split("|"))

_HIT = re.compile(r"^(?P<path>\S+\.ipynb) cell (?P<cell>\d+): (?P<n>\d+) words shared with (?P<ref>\S+):\n    (?P<run>.*)$",
                  re.M)


def _reason_to_skip():
    if not TOOL.is_file():
        return f"the copy-check tool is not here ({TOOL})"
    if not REFERENCES.is_dir() or not any(REFERENCES.glob("*.txt")):
        return f"the reference texts are not here ({REFERENCES})"
    return None


@pytest.mark.skipif(_reason_to_skip() is not None, reason=str(_reason_to_skip()))
def test_solutions_do_not_repeat_the_reference_texts():
    notebooks = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "solutions").glob("*.ipynb"))
    assert notebooks, "no notebooks in solutions/"
    done = subprocess.run([sys.executable, str(TOOL), "-n", str(MIN_WORDS), *notebooks], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1), f"copycheck.py failed:\n{done.stderr}"
    hits = [m.groupdict() for m in _HIT.finditer(done.stdout)]
    assert (done.returncode == 1) == bool(hits), f"could not read the tool's report:\n{done.stdout}"
    copied = [h for h in hits if not _allowed(h["run"])]
    assert not copied, ("Markdown that repeats a reference text word for word; rewrite it in the course's own "
                        "words:\n" + "\n".join(f"  {h['path']} cell {h['cell']} ({h['n']} words, {h['ref']}): "
                                               f"{h['run']}" for h in copied))
