"""What the log says about a learner: per topic (first attempts only) and per chapter.

    >>> events = [{"type": "drill", "topic": "speedup formula", "chapter": "05", "correct": True, "seconds": 40.0}]
    >>> row = topic_summary(events)[0]
    >>> row["accuracy"], row["mean_seconds"]
    (1.0, 40.0)
"""
from __future__ import annotations

def drill_kind(event: dict) -> str:
    """'numeric' (a question drawn from a seed: new seeds give new numbers) or 'coding' (one fixed task)."""
    return "numeric" if str(event.get("drill", "")).startswith("numeric:") else "coding"


def topic_summary(events: list[dict]) -> list[dict]:
    """Per topic, over first attempts only: attempts, correct, accuracy, mean seconds, how many were
    over the suggested time (`over_time`); `retries` counts the later attempts apart; `kinds` says
    whether its drills were coding or numeric ones. The weakest first (lowest accuracy, then slowest)."""
    rows: dict[str, dict] = {}
    for e in events:
        if e.get("type") != "drill":
            continue
        row = rows.setdefault(e.get("topic", "?"), {"topic": e.get("topic", "?"), "chapter": e.get("chapter", "?"),
                                                    "attempts": 0, "correct": 0, "seconds": [], "retries": 0,
                                                    "over_time": 0, "kinds": set()})
        row["kinds"].add(drill_kind(e))
        if e.get("retry"):
            row["retries"] += 1
            continue
        row["attempts"] += 1
        row["over_time"] += e.get("within_time") is False
        row["correct"] += bool(e.get("correct"))
        if e.get("seconds") is not None:
            row["seconds"].append(float(e["seconds"]))
    out = []
    for row in rows.values():
        secs = row.pop("seconds")
        row["kinds"] = sorted(row["kinds"])
        if not row["attempts"]:
            continue                       # only retries of drills started before the log began
        row["accuracy"] = row["correct"] / row["attempts"]
        row["mean_seconds"] = sum(secs) / len(secs) if secs else None
        out.append(row)
    return sorted(out, key=lambda r: (r["accuracy"], -(r["mean_seconds"] or 0.0), r["topic"]))


def _chapter_title(number: str, names: list[str]) -> str:
    match = [n for n in names if n.split("_", 1)[0] == str(number).zfill(2)]
    return match[0] if match else f"chapter {number}"


def format_summary(events: list[dict], chapters: list[str] | None = None, n_weakest: int = 3) -> str:
    """A table of topics (weakest first) and which chapters to reread."""
    rows = topic_summary(events)
    if not rows:
        return "No drills recorded yet: finish a drill and its result appears here."
    chapters = chapters or []
    lines = ["First attempts only: an answer after an earlier answer to the same drill (numeric: the same seed), or "
             "after its worked answer or hints, is a retry, counted apart. Times run from the drill's last start.",
             f"{'topic':<22}{'chapter':>8}{'done':>6}{'right':>7}{'mean time':>11}{'over time':>11}{'retries':>9}"]
    for r in rows:
        mean = "-" if r["mean_seconds"] is None else f"{r['mean_seconds']:.0f} s"
        lines.append(f"{r['topic']:<22}{r['chapter']:>8}{r['attempts']:>6}{r['accuracy']:>7.0%}{mean:>11}"
                     f"{r['over_time']:>11}{r['retries']:>9}")
    lines.append("")
    lines.extend(advice(rows, chapters, n_weakest))
    return "\n".join(lines)


# What to do next, by the kind of drill: a numeric question has fresh numbers for every seed; a coding
# drill is one fixed task, so repeating it soon tests memory, not skill (and is logged as a retry).
_AGAIN = {"numeric": "try the same kind of question with new seeds",
          "coding": "write the function again from a blank cell in a few days, against the clock "
                    "(it will be logged as a retry, apart from your first attempt)"}
FEW = 3             # first attempts below which a summary is not yet evidence of a weak or a strong topic


def _again(row: dict) -> str:
    return "; ".join(_AGAIN[k] for k in row.get("kinds") or ["coding"])


def advice(rows: list[dict], chapters: list[str] | None = None, n_weakest: int = 3) -> list[str]:
    """What to do next, fitted to the evidence (how many first attempts, right or wrong, in time or
    not) and to the kind of drill (coding or numeric)."""
    chapters = chapters or []
    done = sum(r["attempts"] for r in rows)
    lines = []
    weak = [r for r in rows if r["accuracy"] < 1.0][:n_weakest]
    if weak:
        lines.append("Weakest: " + "; ".join(
            f"{r['topic']} ({r['accuracy']:.0%} right): reread {_chapter_title(r['chapter'], chapters)}, then "
            f"{_again(r)}" for r in weak))
    slow = [r for r in rows if r["accuracy"] == 1.0 and r["over_time"]]
    for r in slow[:n_weakest]:
        lines.append(f"Right but over the suggested time in {r['over_time']} of {r['attempts']}: {r['topic']}; "
                     f"to get faster, {_again(r)}.")
    if done < FEW:
        lines.append(f"{done} first attempt{'s' if done != 1 else ''} so far: too few to tell strong topics from "
                     f"weak ones. Do drills of other topics before drawing conclusions.")
    elif not weak and not slow:
        lines.append(f"Every first attempt was right and within the suggested time ({done} drills). "
                     f"Drills of topics not listed above are the next to try.")
    return lines


def format_progress(events: list[dict], chapters: list[str]) -> str:
    """Per chapter: exercises passed in the last self-check (optional exercises listed, not counted),
    and drills done (right / tried)."""
    last_check: dict[str, dict] = {}
    for e in events:
        if e.get("type") == "check":
            last_check[str(e["chapter"])] = e
    drills: dict[str, list[bool]] = {}
    for e in events:
        if e.get("type") == "drill" and not e.get("retry"):
            drills.setdefault(str(e.get("chapter", "?")).zfill(2), []).append(bool(e.get("correct")))
    lines = [f"{'chapter':<28}{'last self-check':<34}drills (right first time / done)"]
    for name in chapters:
        check = last_check.get(name)
        if check is None:
            checked = "not checked yet"
        else:
            optional = set(check.get("optional", []))       # optional exercises are not counted
            ex = {k: v for k, v in check.get("exercises", {}).items() if k not in optional}
            passed = [k.removeprefix("ex_") for k, (got, full) in ex.items() if full and got >= full]
            checked = f"{len(passed)}/{len(ex)} exercises passed ({check.get('when', '?')[:10]})"
        done = drills.get(name.split("_", 1)[0], [])
        lines.append(f"{name:<28}{checked:<34}{sum(done)} / {len(done)}" if done else f"{name:<28}{checked:<34}-")
        if check is not None:
            for k, (got, full) in check.get("exercises", {}).items():
                mark = "passed" if full and got >= full else f"{got:g}/{full:g}"
                label = k.removeprefix("ex_") + (" (optional, not counted)" if k in optional else "")
                lines.append(f"    {label:<39} {mark}")         # a space even after a long label
    lines.append("")
    lines.append(format_summary(events, chapters))
    return "\n".join(lines)
