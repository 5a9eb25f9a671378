import numpy as np
import pytest

from autograder.recording_rng import RecordingGenerator


def test_records_calls_in_order_with_arguments():
    rng = RecordingGenerator(1)
    u = rng.random()
    x = rng.choice(4, p=np.array([0.1, 0.2, 0.3, 0.4]))
    assert rng.names() == ["random", "choice"]
    assert rng.calls[0].result == u
    assert rng.calls[1].args == (4,) and rng.calls[1].kwargs["p"] == (0.1, 0.2, 0.3, 0.4)
    assert rng.calls[1].result == x


def test_scripted_uniforms_come_first_then_the_generator():
    rng = RecordingGenerator(0, uniforms=[0.9, 0.1])
    assert [rng.random(), rng.random()] == [0.9, 0.1]
    assert rng.random() == np.random.default_rng(0).random()


def test_same_seed_same_stream_as_numpy():
    a, b = RecordingGenerator(5), np.random.default_rng(5)
    assert [a.random() for _ in range(3)] == [b.random() for _ in range(3)]
    assert a.choice(10, p=np.full(10, 0.1)) == b.choice(10, p=np.full(10, 0.1))


def test_the_record_is_a_copy():
    rng = RecordingGenerator(0)
    p = np.array([0.5, 0.5])
    rng.choice(2, p=p)
    p[0] = 1.0
    assert rng.calls[0].kwargs["p"] == (0.5, 0.5)


def test_other_methods_are_refused_with_a_pointer():
    rng = RecordingGenerator(0)
    with pytest.raises(AttributeError, match="rng.random"):
        rng.integers(3)
    rng.reset()
    assert rng.calls == []
