"""What scrapes HAMi finds what HAMi's chart renders at the pin: the observability plan's ServiceMonitors select the
chart's device plugin monitor and scheduler Services by their labels and port names, its GKE PodMonitorings the
pods by theirs and their containers' ``metrics`` port, in the namespace the release goes to; the chart renders no
ServiceMonitor of its own (it cannot be told to keep the workload's labels)."""

from __future__ import annotations

from typing import Any

from gpu_platform import versions
from gpu_platform.addons.hami.plan import hami_plan
from gpu_platform.addons.observability import plan as obs
from gpu_platform.addons.observability.checks import ObservabilitySpec
from gpu_platform.pools import GpuPool
from gpu_platform.releases import HAMI
from gpu_platform.resolve.cluster_pools import resolve_pools
from tests.support.helm import of_kind, render_chart

CHART = f"hami-{versions.HAMI.version}"


def _pools() -> list[GpuPool]:
    return resolve_pools(
        "gke",
        [
            {
                "name": "l4",
                "machine_type": "g2-standard-8",
                "min_nodes": 1,
                "max_nodes": 2,
                "sharing": {"mode": "isolated", "replicas": 4},
            }
        ],
    )


def _rendered() -> list[dict[str, Any]]:
    plan = hami_plan(_pools(), "1.34")
    return render_chart(CHART, plan.values, HAMI.release_name, plan.namespace)


def _matches(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(k) == v for k, v in selector.items())


def test_the_servicemonitors_select_hamis_metrics_services_by_label_and_port() -> None:
    rendered = _rendered()
    services = of_kind(rendered, "Service")
    plan = obs.observability_plan(ObservabilitySpec("gke"), pools=_pools())
    monitors = [o for o in plan.objects if o["kind"] == "ServiceMonitor"]
    assert {m["metadata"]["name"] for m in monitors} == {"hami-device-plugin", "hami-scheduler"}
    targets = {}
    for monitor in monitors:
        assert monitor["spec"]["namespaceSelector"]["matchNames"] == [hami_plan(_pools()).namespace]
        (service,) = [
            s
            for s in services
            if _matches(monitor["spec"]["selector"]["matchLabels"], s["metadata"]["labels"])
        ]
        assert service["metadata"]["namespace"] == "hami-system"
        ports = {p["name"]: p["targetPort"] for p in service["spec"]["ports"]}
        (endpoint,) = monitor["spec"]["endpoints"]
        targets[service["metadata"]["name"]] = ports[endpoint["port"]]
    # The device plugin monitor's --metrics-bind-address :9394 (cmd/vGPUmonitor/main.go), the scheduler's 9395.
    assert targets == {"hami-device-plugin-monitor": 9394, "hami-scheduler": 9395}
    assert not of_kind(rendered, "ServiceMonitor")


def test_gke_pod_monitorings_select_hamis_pods_and_their_metrics_port() -> None:
    rendered = _rendered()
    templates = {
        w["metadata"]["name"]: w["spec"]["template"]
        for w in of_kind(rendered, "DaemonSet") + of_kind(rendered, "Deployment")
    }
    plan = obs.observability_plan(ObservabilitySpec("gke", backend="gke-managed-prometheus"), pools=_pools())
    found = {}
    for monitoring in (
        o for o in plan.objects if o["kind"] == "ClusterPodMonitoring" and "hami" in o["metadata"]["name"]
    ):
        selector = dict(monitoring["spec"]["selector"]["matchLabels"])
        # The leader label is set at run time by the elected scheduler, not by the chart.
        leader = selector.pop("hami.io/scheduler-role", None)
        (name,) = [n for n, t in templates.items() if _matches(selector, t["metadata"]["labels"])]
        ports = {
            p["name"]: p["containerPort"]
            for c in templates[name]["spec"]["containers"]
            for p in c.get("ports", [])
        }
        found[name] = (ports[monitoring["spec"]["endpoints"][0]["port"]], leader)
    assert found == {"hami-device-plugin": (9394, None), "hami-scheduler": (9395, "leader")}
