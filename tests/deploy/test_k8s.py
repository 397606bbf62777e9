"""The large-room deployment, checked as far as a machine without Kubernetes or Docker can:
deploy/k8s/values.yaml, merged over the chart's defaults as Helm merges them, validates against
the Zero to JupyterHub chart's own values schema (deploy/k8s/z2jh-chart/, read from the chart's
repository); it agrees with the Dockerfile and with the one-machine hub on paths and start page."""
from __future__ import annotations

import copy
import json
import re

from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")
jsonschema = pytest.importorskip("jsonschema")
tomllib = pytest.importorskip("tomllib")   # Python 3.11+

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"


def helm_merge(base, over):
    """Helm's coalescing of a values file over the chart's defaults: maps merge key by key,
    anything else (lists, scalars) is replaced, and a null deletes the default."""
    out = copy.deepcopy(base)
    for k, v in over.items():
        if v is None:
            out.pop(k, None)
        elif isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = helm_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


@pytest.fixture(scope="module")
def schema():
    return json.loads((K8S / "z2jh-chart" / "values.schema.json").read_text())


@pytest.fixture(scope="module")
def merged():
    defaults = yaml.safe_load((K8S / "z2jh-chart" / "values.yaml").read_text())
    ours = yaml.safe_load((K8S / "values.yaml").read_text())
    return helm_merge(defaults, ours)


def test_values_validate_against_the_charts_schema(schema, merged):
    jsonschema.Draft7Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(merged), key=str)
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])


def test_the_schema_catches_a_mistake(schema, merged):
    """The check can fail: a misspelt key and a wrong type are both reported."""
    bad = copy.deepcopy(merged)
    bad["singleuser"]["defaultURL"] = "/lab"
    bad["cull"]["timeout"] = "an hour"
    msgs = [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(bad)]
    assert any("defaultURL" in m for m in msgs) and any("an hour" in m for m in msgs)


def test_helm_merge_rules():
    assert helm_merge({"a": {"b": 1, "c": 2}, "l": [1]}, {"a": {"b": 3}, "l": [2]}) == \
        {"a": {"b": 3, "c": 2}, "l": [2]}
    assert helm_merge({"a": {"b": 1}}, {"a": None}) == {}


def test_values_agree_with_the_image_and_the_local_hub(merged):
    su = merged["singleuser"]
    docker = (K8S / "Dockerfile").read_text()
    cmd = su["lifecycleHooks"]["postStart"]["exec"]["command"]
    assert cmd[:2] == ["umkit", "workspace"]
    # the workspace comes from the notebooks installed with the package (the wheel holds them)
    assert "--src" not in cmd
    dest = cmd[cmd.index("--dest") + 1]
    assert merged["hub"]["config"]["KubeSpawner"]["notebook_dir"] == dest
    assert dest.startswith("/home/jovyan/") and "useradd --create-home --uid 1000" in docker
    # every folder the Dockerfile copies exists, and the extras it installs are the package's
    for path in re.findall(r"^COPY (\S+) ", docker, re.M):
        assert (ROOT / path).exists(), path
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert {"lab", "cuda"} <= set(extras)
    local = (ROOT / "deploy" / "jupyterhub" / "jupyterhub_config.py").read_text()
    assert f'c.Spawner.default_url = "{su["defaultUrl"]}"' in local
    assert su["defaultUrl"] == "/lab/tree/00_start_here.ipynb"
    assert (ROOT / "notebooks" / "00_start_here.ipynb").exists()
    assert len(merged["hub"]["config"]["SharedPasswordAuthenticator"]["user_password"]) >= 8
