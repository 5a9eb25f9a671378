"""The lab's prompt set (chapter 12): the course's own short prompts in four kinds of text.

Acceptance depends on the text: code and quoted passages are predictable, open prose less so.
Each kind has three prompts, written for the course. `SUMMARY_PASSAGE` is the passage the
summarizing prompts ask about, so a model can copy from it (prompt lookup thrives there).

    >>> sorted(PROMPTS)
    ['code', 'prose', 'question answering', 'summarizing']
    >>> all(len(v) == 3 for v in PROMPTS.values())
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


def all_prompts() -> list[tuple[str, str]]:
    """[(kind, prompt), ...] in a fixed order."""
    return [(kind, p) for kind, prompts in PROMPTS.items() for p in prompts]
