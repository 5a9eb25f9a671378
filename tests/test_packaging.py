"""pyproject.toml and environment.yml install the same pinned set."""
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _pins(lines):
    pins = {}
    for line in lines:
        m = re.fullmatch(r"\s*([A-Za-z0-9_.\-\[\]]+)\s*==\s*([A-Za-z0-9_.+\-]+)\s*", line)
        if m:
            pins[m.group(1).lower().replace("_", "-")] = m.group(2)
    return pins


def test_pyproject_pins_every_dependency_exactly():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert deps and all("==" in d for d in deps), deps


def test_environment_yml_pins_the_same_packages():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    env = (ROOT / "environment.yml").read_text().splitlines()
    pip_lines = [ln.strip()[2:] for ln in env if ln.strip().startswith("- ") and "==" in ln]
    assert _pins(pip_lines) == _pins(deps)
    assert any(re.fullmatch(r"\s*- python=3\.11(\.\*)?\s*", ln) for ln in env), "environment.yml must pin python 3.11"


def test_constraints_agree_with_the_top_level_pins():
    deps = _pins(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"])
    frozen = _pins((ROOT / "constraints.txt").read_text().splitlines())
    for name, version in deps.items():
        assert frozen.get(name) == version, f"constraints.txt pins {name}=={frozen.get(name)}, pyproject {version}"
