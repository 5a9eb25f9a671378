"""The files of a class on Zero to JupyterHub (deploy/) pin what the course pins and agree with each other."""
import re
import tomllib

import yaml

from autograder.grading.preflight import read_pins
from autograder.paths import REPO_ROOT

DEPLOY = REPO_ROOT / "deploy"
DOCKERFILE = (DEPLOY / "Dockerfile").read_text()
VALUES_TEXT = (DEPLOY / "values.yaml").read_text()
VALUES = yaml.safe_load(VALUES_TEXT)
GUIDE = (DEPLOY / "README.md").read_text()
PINS = read_pins()


def test_the_image_has_the_course_python_and_installs_every_package_pinned():
    python = re.search(r"^FROM python:(\d+\.\d+)", DOCKERFILE, re.M).group(1)
    requires = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert python in requires, (python, requires)
    installs = [ln for ln in DOCKERFILE.splitlines() if "pip install" in ln]
    assert installs and all("-c /opt/course/constraints.txt" in ln for ln in installs), installs
    assert "COPY bundle/ /opt/course/" in DOCKERFILE          # the student bundle, not the repository
    assert "bubblewrap" in DOCKERFILE


def test_the_jupyterhub_version_named_everywhere_is_the_pinned_one():
    pinned = PINS["jupyterhub"]
    for name, text in [("values.yaml", VALUES_TEXT), ("README.md", GUIDE), ("Dockerfile", DOCKERFILE)]:
        named = set(re.findall(r"jupyterhub==([\d.]+)", text)) | set(re.findall(r"JupyterHub (\d+)\b", text))
        assert named, f"{name} does not say which JupyterHub it needs"
        assert named <= {pinned, pinned.split(".")[0]}, (name, named, pinned)


def test_the_exchange_volume_is_where_nbgrader_looks_and_the_settings_exist():
    nbgrader = (DEPLOY / "nbgrader_config.py").read_text()
    root = re.search(r'c\.Exchange\.root = "([^"]+)"', nbgrader).group(1)
    mounts = VALUES["singleuser"]["storage"]["extraVolumeMounts"]
    assert [m["mountPath"] for m in mounts] == [root]
    init = VALUES["singleuser"]["initContainers"][0]
    assert f"chmod 777 {root}" in " ".join(init["command"])
    claim = yaml.safe_load((DEPLOY / "exchange-pvc.yaml").read_text())
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]
    assert VALUES["singleuser"]["storage"]["extraVolumes"][0]["persistentVolumeClaim"]["claimName"] == \
        claim["metadata"]["name"]
    # Every settings folder the image or the instructor's servers name is in the bundle's jupyter_config/.
    named = re.findall(r"/opt/course/(jupyter_config/[\w/]+)", DOCKERFILE + VALUES_TEXT)
    assert named and all((REPO_ROOT / n).is_dir() for n in named), named


def test_the_guide_builds_the_image_the_values_run():
    image = VALUES["singleuser"]["image"]
    assert f"{image['name']}:{image['tag']}" in GUIDE
    assert "python -m autograder bundle deploy/bundle" in GUIDE
