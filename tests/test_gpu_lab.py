"""benchmarks/gpu_lab.py on a CPU: the dry run end to end, and the real-shape path with one layer.

The GPU script cannot run here; these runs check everything but the device: every section is
written, dry output is labelled as dry (never as a GPU result), greedy speculation equals plain
greedy, and Hugging Face's rounds are its own (counted), equal to the course engine's under greedy.
"""
import importlib.util
import json
from pathlib import Path

import pytest
import torch

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "gpu_lab.py"


def gpu_lab():
    spec = importlib.util.spec_from_file_location("gpu_lab", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def threads():
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def test_dry_run_writes_every_section_labelled_dry(tmp_path, threads):
    out = tmp_path / "dry.md"
    res = gpu_lab().main(["--dry", "--out", str(out)])
    text = out.read_text()
    assert text.startswith("# DRY RUN on a CPU, not a GPU result")
    assert json.loads(out.with_suffix(".json").read_text())["dry"] is True
    for section in ("## (a)", "## (b)", "## (c)", "## (d) speedup against gamma [dry models]", "## (e)"):
        assert section in text, section
    assert "CUDA graphs need a GPU" in text
    assert res["sweep"] and all(row["greedy_equal"] for row in res["sweep"])
    assert res["sweep_T1"], "the sampled path must run in the dry run too"
    assert 0 < res["c"]["median"] < 5
    eng = res["overhead"]
    hf = eng["HF assisted (constant gamma, threshold 0)"]
    ours = eng["course engine, dynamic cache"]
    assert hf["rounds"] == ours["rounds"] == eng["course engine, static cache"]["rounds"]   # greedy: same work
    assert hf["draft_passes"] == ours["draft_passes"]


def test_real_weights_are_never_downloaded_and_gpu_mode_needs_a_gpu(monkeypatch):
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(SystemExit, match="--dry"):
        gpu_lab().main([])
    with pytest.raises(SystemExit):
        gpu_lab().main(["--real-shapes"])                    # the CPU check of real shapes is a dry run


@pytest.mark.slow
def test_dry_real_shapes_runs_the_random_weight_path(tmp_path, threads):
    # GPT-2-XL's and GPT-2's widths, heads and vocabulary with one layer each: the path a GPU
    # without checkpoints takes (timings only, speedup predicted for stated alphas).
    out = tmp_path / "rs.md"
    res = gpu_lab().main(["--dry", "--real-shapes", "--out", str(out)])
    text = out.read_text()
    assert text.startswith("# DRY RUN") and "## (d) speedup against gamma: not measured" in text
    assert "assumed alpha" in text and not res["sweep"]
    assert res["target_layers"] == res["draft_layers"] == 1
