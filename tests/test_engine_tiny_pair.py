"""The course-trained pair: checksums, loading, and the engine on it (greedy equality, stats)."""
import shutil

import pytest
import torch

from specdec.engine.generate import plain_generate, speculative_generate
from specdec.engine.measure import predicted_n_bar, predicted_speedup
from specdec.tiny_pair import EOS, WEIGHTS, check_weights, decode, encode, load_tiny_pair, training_log


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


def test_the_pair_has_the_documented_shapes(pair):
    target, draft = pair
    log = training_log()
    assert target.config.n_layer == log["target"]["n_layer"] == 8 and draft.config.n_layer == 1
    assert target.config.vocab_size == draft.config.vocab_size == 256
    assert log["seq"] == 128 and log["steps"] >= 400


def test_engine_on_the_pair_keeps_greedy_and_accepts_drafts(pair):
    target, draft = pair
    prompt = encode("    def push(self, item):\n        self.items.append(item)\n\n    def pop(self):\n")
    want = plain_generate(target, prompt, 30, temperature=0.0)
    got, stats = speculative_generate(target, draft, prompt, gamma=4, max_new_tokens=30, temperature=0.0)
    assert got.tolist() == want.tolist()
    assert stats.n_bar() > 1.5, stats.histogram           # a trained, distilled draft keeps drafts
    assert predicted_n_bar(stats.survival(), 4) == pytest.approx(stats.n_bar())
    assert predicted_speedup(stats.n_bar(), 4, 0.0, 1.0) == pytest.approx(stats.n_bar())
    assert isinstance(decode(got.tolist()), str) and EOS == 0
