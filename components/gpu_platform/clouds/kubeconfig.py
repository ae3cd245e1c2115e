"""Kubeconfigs whose user runs a credential plugin: no long-lived secret in the file itself."""

from __future__ import annotations

import json
from typing import Any

EXEC_API_VERSION = "client.authentication.k8s.io/v1beta1"


def exec_kubeconfig(name: str, server: str, ca_data: str, exec_spec: dict[str, Any]) -> str:
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {"name": name, "cluster": {"server": server, "certificate-authority-data": ca_data}}
            ],
            "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
            "current-context": name,
            "users": [{"name": name, "user": {"exec": {"apiVersion": EXEC_API_VERSION, **exec_spec}}}],
        },
        indent=2,
    )
