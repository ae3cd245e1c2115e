"""The container of the library's small node agents: a bash script around kubectl, run from a ConfigMap.

The startup-taint remover and the GPU health remedy each watch their own Node and change its taints. Both run
the Kubernetes project's kubectl image (bash, jq and coreutils since kubernetes/kubernetes#119592, file
``build/server-image/kubectl/Dockerfile``) as nobody, with a read-only root (kubectl's cache on an emptyDir)
and their node's name from the downward API.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpu_platform import versions
from gpu_platform.plans.node_daemonsets import Requests


def node_script_container(
    name: str,
    script: str,
    env: Mapping[str, str],
    requests: Requests,
    config: tuple[str, str],
    tmp_volume: str,
) -> dict[str, Any]:
    """The container running ``script`` (a path under ``config``'s mount) with ``NODE_NAME``, ``env`` and
    ``HOME=/tmp``; ``config`` is (volume name, mount path), mounted read-only; ``tmp_volume`` is ``/tmp``."""
    volume, mount = config
    return {
        "name": name,
        "image": versions.KUBECTL_IMAGE,
        "command": ["/bin/bash", script],
        "env": [
            {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
            *({"name": k, "value": v} for k, v in env.items()),
            {"name": "HOME", "value": "/tmp"},  # kubectl's cache, on the emptyDir (read-only root)
        ],
        "resources": {
            "requests": requests.quantities(),
            "limits": {"memory": f"{2 * requests.memory_mib}Mi"},
        },
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "runAsNonRoot": True,
            "runAsUser": 65534,
            "capabilities": {"drop": ["ALL"]},
        },
        "volumeMounts": [
            {"name": volume, "mountPath": mount, "readOnly": True},
            {"name": tmp_volume, "mountPath": "/tmp"},
        ],
    }
