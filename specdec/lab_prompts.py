"""The lab's prompt sets (chapter 12): the course's own short prompts in four kinds of text.

Acceptance depends on the text: code and quoted passages are predictable, open prose less so.
`PROMPTS` has three prompts of each kind, written for the course: the lab checks its predictions
on them. `CALIBRATION` has two more of each kind, disjoint from `PROMPTS`: the lab measures the
survival curve and the engine's overhead there and predicts from those numbers, so a prediction
is never checked on the text it was fitted to. `SUMMARY_PASSAGE` is the passage the summarizing
prompts ask about, so a model can copy from it (prompt lookup thrives there).

    >>> sorted(PROMPTS) == sorted(CALIBRATION)
    True
    >>> [len(v) for v in PROMPTS.values()], [len(v) for v in CALIBRATION.values()]
    ([3, 3, 3, 3], [2, 2, 2, 2])
    >>> set(p for _, p in all_prompts()).isdisjoint(p for _, p in all_prompts(CALIBRATION))
    True
"""
from __future__ import annotations

SUMMARY_PASSAGE = (
    "The river town grew up around a wooden bridge that carried wool carts to the market. When the railway "
    "came, a stone bridge replaced it and the market moved next to the station. Today the town is known for "
    "its spring wool fair and a small museum that keeps one plank of the first bridge."
)

PROMPTS: dict[str, list[str]] = {
    "code": [
        "def moving_average(values, window):\n    \"\"\"Return the mean of each run of `window` consecutive values.\"\"\"\n",
        "class Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, item):\n",
        "import os\n\n\ndef list_python_files(root):\n    for dirpath, dirnames, filenames in os.walk(root):\n",
    ],
    "prose": [
        "The first thing you notice about the old harbour in winter is the silence. The boats",
        "She had always kept a notebook by the window, and every morning she wrote down",
        "When the power went out across the city, people came down into the streets and",
    ],
    "question answering": [
        "Q: What is the boiling point of water at sea level in degrees Celsius?\nA:",
        "Q: Which planet is closest to the Sun?\nA:",
        "Q: How many days are there in a leap year?\nA:",
    ],
    "summarizing": [
        f"{SUMMARY_PASSAGE}\n\nSummary of the passage in one sentence:",
        f"{SUMMARY_PASSAGE}\n\nWhat replaced the wooden bridge? Answer using the passage:",
        f"{SUMMARY_PASSAGE}\n\nThe passage says the town is known for",
    ],
}


CALIBRATION: dict[str, list[str]] = {
    "code": [
        "def read_config(path):\n    \"\"\"Return the settings in the file at `path` as a dictionary.\"\"\"\n",
        "class Counter:\n    def __init__(self, start=0):\n        self.value = start\n\n    def increment(self):\n",
    ],
    "prose": [
        "The train was late again, so the two friends sat on the bench and talked about",
        "In the morning the village was covered in snow, and the children ran out to",
    ],
    "question answering": [
        "Q: How many minutes are there in an hour?\nA:",
        "Q: What is the largest ocean on Earth?\nA:",
    ],
    "summarizing": [
        f"{SUMMARY_PASSAGE}\n\nWhere did the market move to? Answer using the passage:",
        f"{SUMMARY_PASSAGE}\n\nIn short, the passage describes",
    ],
}


def all_prompts(prompts: dict[str, list[str]] | None = None) -> list[tuple[str, str]]:
    """[(kind, prompt), ...] of `prompts` (default: PROMPTS, the set predictions are checked on), in a fixed order."""
    prompts = PROMPTS if prompts is None else prompts
    return [(kind, p) for kind, texts in prompts.items() for p in texts]
