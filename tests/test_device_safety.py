"""The GPU path, checked by reading: no CPU run can show a device mismatch, so this test reads
chapter 12 (solutions), specdec/engine/ and benchmarks/gpu_lab.py and fails on

- a `torch.Generator(...)` made without a `device` that is handed to anything but a CPU tensor
  factory (torch.randint, randperm, ...): sampling on CUDA needs a CUDA generator
  (`check_generator` raises otherwise), and
- `.numpy()` of a tensor not brought to the host first (`.cpu()`, `.to("cpu")`, `force=True`):
  a CUDA tensor raises TypeError there.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from autograder import notebooks

ROOT = Path(__file__).resolve().parents[1]
# factories that draw on the host with a host generator; their output is moved with .to(device)
HOST_FACTORIES = {"randint", "randperm", "rand", "randn", "normal", "bernoulli", "multinomial"}


def sources():
    nb = notebooks.read(ROOT / "solutions" / "12_gpt2_lab.ipynb")
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            # IPython magics would not parse; the chapter has none, but keep the check robust
            text = "\n".join(l for l in cell.source.splitlines() if not l.lstrip().startswith(("%", "!")))
            yield f"solutions/12_gpt2_lab.ipynb cell {i}", text
    for path in sorted((ROOT / "specdec" / "engine").glob("*.py")) + [ROOT / "benchmarks" / "gpu_lab.py"]:
        yield str(path.relative_to(ROOT)), path.read_text()


def _is_generator_call(node) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "Generator"
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "torch")


def _host_generator(node) -> bool:
    """torch.Generator() or torch.Generator().manual_seed(s) without a device."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "manual_seed":
        node = node.func.value
    return _is_generator_call(node) and not node.args and not any(k.arg == "device" for k in node.keywords)


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def generator_problems(text: str) -> list[int]:
    """Line numbers where a host generator goes to a call that samples on the models' device."""
    tree = ast.parse(text)
    host_names = {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign) and _host_generator(node.value)
                  for t in node.targets if isinstance(t, ast.Name)}
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _callee(node) not in HOST_FACTORIES:
            for kw in node.keywords:
                if kw.arg == "generator" and (_host_generator(kw.value) or
                                              (isinstance(kw.value, ast.Name) and kw.value.id in host_names)):
                    bad.append(node.lineno)
    return bad


def _on_host(node) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "cpu":
            return True
        if node.func.attr == "to" and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == "cpu":
            return True
        if node.func.attr in {"detach", "double", "float", "clone", "contiguous"}:
            return _on_host(node.func.value)
    return False


def numpy_problems(text: str) -> list[int]:
    """Line numbers of `.numpy()` on a value not brought to the host in the same expression."""
    bad = []
    for node in ast.walk(ast.parse(text)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "numpy"
                and not any(k.arg == "force" for k in node.keywords) and not _on_host(node.func.value)):
            bad.append(node.lineno)
    return bad


def test_checks_catch_the_known_bugs():
    # the two lines that crashed chapter 12 on a GPU, and their fixes
    assert generator_problems("gen = torch.Generator().manual_seed(5)\nf(x, generator=gen)") == [2]
    assert generator_problems("f(x, generator=torch.Generator().manual_seed(5))") == [1]
    assert generator_problems("gen = torch.Generator(device=d).manual_seed(5)\nf(x, generator=gen)") == []
    assert generator_problems("g = torch.Generator().manual_seed(0)\ntorch.randint(9, (3,), generator=g)") == []
    assert numpy_problems("a = p_row.numpy()") == [1]
    assert numpy_problems("a = p_row.cpu().numpy()\nb = p.to('cpu').numpy()\nc = p.detach().cpu().numpy()") == []


@pytest.mark.parametrize("where,text", list(sources()), ids=lambda v: v if isinstance(v, str) and len(v) < 80 else "")
def test_device_safe(where, text):
    gens, nps = generator_problems(text), numpy_problems(text)
    assert not gens, (f"{where}, line(s) {gens}: a torch.Generator made without the models' device goes to a "
                      "sampler; make it with torch.Generator(device=model_device(target))")
    assert not nps, f"{where}, line(s) {nps}: .numpy() of a tensor that may live on the GPU; call .cpu() first"
