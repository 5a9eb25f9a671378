"""The course-trained pair: checksums, loading, the documented shapes and context, and the engine on it
(greedy equality, sampled acceptance, output that is not a loop)."""
import json
import shutil

import numpy as np
import pytest
import torch

from specdec.engine.generate import plain_generate, speculative_generate
from specdec.engine.measure import run_plain, run_speculative
from specdec.engine.prediction import predicted_steady_speedup
from specdec.speedup_model import expected_tokens_from_survival
from specdec.lab_prompts import CALIBRATION, PROMPTS, all_prompts
from specdec.tiny_pair import EOS, WEIGHTS, check_weights, decode, encode, load_tiny_pair, training_log
from specdec.tiny_pair.quality import repeated_ngram_fraction


@pytest.fixture(scope="module")
def pair():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield load_tiny_pair()
    torch.set_num_threads(before)


def test_checksums_match_and_a_damaged_file_is_refused(tmp_path):
    assert set(check_weights()) == {"target.safetensors", "target.json", "draft.safetensors", "draft.json"}
    copy = tmp_path / "weights"
    shutil.copytree(WEIGHTS, copy)
    data = bytearray((copy / "draft.safetensors").read_bytes())
    data[-1] ^= 0xFF
    (copy / "draft.safetensors").write_bytes(bytes(data))
    with pytest.raises(ValueError, match="SHA-256"):
        load_tiny_pair(copy)


def test_the_pair_has_the_documented_shapes_and_stays_lean(pair):
    target, draft = pair
    log = training_log()
    assert target.config.n_layer == log["target"]["n_layer"] == 12 and target.config.n_embd == 128
    assert draft.config.n_layer == log["draft"]["n_layer"] == 1 and draft.config.n_embd == 192
    assert target.config.vocab_size == draft.config.vocab_size == 256
    assert log["seq"] == 256 and log["steps"] >= 400 and log["tokens_seen"] == log["steps"] * log["batch"] * log["seq"]
    assert sum(p.stat().st_size for p in WEIGHTS.iterdir()) < 20e6
    assert (WEIGHTS / "train.log").read_text().startswith("command: python -m specdec.tiny_pair.train")


def test_the_trainer_runs_and_a_continued_run_adds_up(tmp_path):
    """The shipped command works (a few steps), and --init continues a saved pair, keeping its log."""
    from specdec.tiny_pair import load_model, train
    first, second = tmp_path / "first", tmp_path / "second"
    train.main(["--quick", "--out", str(first)])
    train.main(["--quick", "--init", str(first), "--out", str(second)])
    log = json.loads((second / "train_log.json").read_text())
    assert [r["steps"] for r in log["runs"]] == [6, 6] and log["steps"] == 12
    assert [r["batch"] for r in log["runs"]] == [4, 4] and log["batch"] == 4
    assert log["tokens_seen"] == 12 * 4 * log["seq"]
    assert log["command"] == (f"python -m specdec.tiny_pair.train --quick --out {first} && "
                              f"python -m specdec.tiny_pair.train --quick --init {first} --out {second}")
    text = (second / "train.log").read_text()
    assert text.startswith(f"command: python -m specdec.tiny_pair.train --quick --out {first}")
    assert f"--- continued from {first} ---" in text
    assert set(check_weights(second)) == {"target.safetensors", "target.json", "draft.safetensors", "draft.json"}
    before, after = load_model("target", first), load_model("target", second)
    assert any(not torch.equal(a, b) for a, b in zip(before.parameters(), after.parameters()))   # it trained


def test_generation_beyond_the_trained_context_is_refused(pair):
    target, draft = pair
    assert target.config.n_positions == draft.config.n_positions == training_log()["seq"]
    with pytest.raises(ValueError, match="positions"):
        plain_generate(target, torch.zeros(250, dtype=torch.long) + 32, 10, temperature=0.0)


def test_engine_on_the_pair_keeps_greedy_and_accepts_drafts(pair):
    target, draft = pair
    prompt = encode("    def push(self, item):\n        self.items.append(item)\n\n    def pop(self):\n")
    want = plain_generate(target, prompt, 30, temperature=0.0)
    got, stats = speculative_generate(target, draft, prompt, gamma=4, max_new_tokens=30, temperature=0.0)
    assert got.tolist() == want.tolist()
    assert stats.n_bar() > 1.5, stats.histogram           # a trained, distilled draft keeps drafts
    assert expected_tokens_from_survival(stats.survival()[:4]) == pytest.approx(stats.n_bar())
    assert predicted_steady_speedup(stats.n_bar(), 4, 0.0, 1.0) == pytest.approx(stats.n_bar())
    assert isinstance(decode(got.tolist()), str) and EOS == 0


def test_sampled_acceptance_on_the_calibration_prompts(pair):
    """At T = 1 the distilled draft is accepted often: the lab's speedup rests on this."""
    target, draft = pair
    ids = [encode(text)[-150:] for _, text in all_prompts(CALIBRATION)]
    run = run_speculative(target, draft, ids, 4, 32, temperature=1.0, seed=0)
    stats = run["stats"]
    assert stats.n_bar() > 2.5, (stats.n_bar(), stats.histogram)
    assert np.all(stats.mean_alpha() > 0.6), stats.mean_alpha()


def test_sampled_output_is_not_a_loop_and_greedy_output_loops_more(pair):
    """What the lab says about the pair's text: sampled at T = 1 it repeats 8-grams about as rarely as real text,
    greedy decoding (the lab keeps it for exactness only) repeats far more."""
    target, _ = pair
    ids = [encode(text)[-180:] for _, text in all_prompts(PROMPTS)]
    sampled = run_plain(target, ids, 64, temperature=1.0, seed=0)["tokens"]
    greedy = run_plain(target, ids, 64, temperature=0.0)["tokens"]
    s_share = np.mean([repeated_ngram_fraction(t) for t in sampled])
    g_share = np.mean([repeated_ngram_fraction(t) for t in greedy])
    assert s_share < 0.25, s_share
    assert g_share > s_share + 0.2, (g_share, s_share)
    log = training_log()["repeated_8gram_fraction"]
    assert all(v["greedy"] > v["reference"] for v in log.values()), log
