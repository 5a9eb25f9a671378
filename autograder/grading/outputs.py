r"""Outputs the executor writes into a graded notebook: its own errors, stream outputs merged the same
way whatever the kernel's flush timing, and a byte cap per cell.

    >>> out = lambda text: {"output_type": "stream", "name": "stdout", "text": text}
    >>> figure = {"output_type": "display_data", "data": {"image/png": "..."}}
    >>> [o.get("text") for o in merge_streams([out("a\n"), out("b\n"), figure, out("c\n")])]
    ['a\nb\n', None, 'c\n']
    >>> cell = {"outputs": [{"output_type": "stream", "name": "stdout", "text": "x" * 5000}]}
    >>> cap_outputs(cell, 2000)
    >>> len(cell["outputs"][0]["text"].encode()) < 2000, "bytes of output cut" in cell["outputs"][0]["text"]
    (True, True)
"""
from __future__ import annotations

from nbformat import NotebookNode


def error_output(ename: str, evalue: str) -> NotebookNode:
    return NotebookNode(output_type="error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


def merge_streams(outputs: list) -> list:
    """Each run of stream outputs between two rich outputs, merged into one stdout then one stderr.

    A kernel sends what a cell prints whenever its buffer or a timer says so, so one loop of prints
    can come back as one output or as several, and stdout and stderr (separate buffers) in either
    order; grading the same notebook twice then gave two different feedback pages. A figure or other
    rich output flushes the text before it, so text never moves across one.
    """
    merged, run = [], {}
    for output in list(outputs) + [None]:
        if output is not None and output.get("output_type") == "stream":
            if output.get("name") in run:
                run[output["name"]]["text"] += output.get("text", "")
            else:
                run[output.get("name")] = NotebookNode(dict(output, text=output.get("text", "")))
            continue
        merged += [run[name] for name in sorted(run, key=lambda n: (n != "stdout", n))]
        run = {}
        if output is not None:
            merged.append(output)
    return merged


def _text_size(output) -> int:
    if output.get("output_type") == "stream":
        return len(output.get("text", "").encode())
    if output.get("output_type") == "error":
        return sum(len(t.encode()) for t in output.get("traceback", [])) + len(str(output.get("evalue", "")))
    return sum(len(str(v).encode()) for v in output.get("data", {}).values())


def _shorten(text: str, limit: int) -> str:
    raw = text.encode()
    if len(raw) <= limit:
        return text
    head = raw[: limit // 2].decode(errors="ignore")
    tail = raw[-limit // 4:].decode(errors="ignore")
    return f"{head}\n\n... [{len(raw) - len(head.encode()) - len(tail.encode()):,} bytes of output cut] ...\n\n{tail}"


def cap_outputs(cell, limit: int) -> None:
    """Keep a cell's outputs under `limit` bytes: long text keeps its start and end, extra outputs go."""
    kept, used = [], 0
    for output in cell.get("outputs", []):
        size = _text_size(output)
        room = limit - used
        if size <= room:
            kept.append(output)
            used += size
            continue
        if output.get("output_type") == "stream" and room > 1000:
            output["text"] = _shorten(output["text"], room - 200)
            kept.append(output)
            used = limit
        elif output.get("output_type") == "error":
            output["traceback"] = [_shorten("\n".join(output.get("traceback", [])), max(room, 2000))]
            kept.append(output)
            used = limit
        else:
            dropped = NotebookNode(output_type="stream", name="stdout",
                                   text=f"\n... [more output cut: over {limit:,} bytes in one cell] ...\n")
            if not kept or kept[-1].get("text") != dropped.text:
                kept.append(dropped)
    cell["outputs"] = kept
