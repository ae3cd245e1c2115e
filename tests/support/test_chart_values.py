"""The values walkers themselves: each catches a key the chart does not read, so a green values test means
something."""

from __future__ import annotations

from tests.support.chart_values import chart_values, missing_keys, missing_upstream


def test_missing_keys_catches_a_misspelt_path() -> None:
    upstream_values = {"kserve": {"controller": {"deploymentMode": "Knative", "nodeSelector": {}}}}
    assert missing_keys({"kserve": {"controller": {"deploymentmode": "Standard"}}}, upstream_values) == [
        "kserve.controller.deploymentmode"
    ]
    assert missing_keys({"kserve": {"controller": {"nodeSelector": {"a": "b"}}}}, upstream_values) == []


def test_key_path_walker_catches_a_wrong_key() -> None:
    operator_chart_values = chart_values("gpu-operator", "values.yaml")
    assert missing_upstream({"migManager": {"config": {"nam": "x"}}}, operator_chart_values) == [
        "migManager.config.nam"
    ]
    assert missing_upstream({"cdi": {"default": True}}, operator_chart_values) == ["cdi.default"]
    assert missing_upstream({"toolkit": {"env": {"A": "b"}}}, operator_chart_values) == ["toolkit.env.A"]
    assert missing_upstream({"mig": {"strategy": ["mixed"]}}, operator_chart_values) == [
        "mig.strategy (upstream str, ours list)"
    ]
    assert missing_upstream({"devicePlugin": {"config": {"data": {"any": "x"}}}}, operator_chart_values) == []
