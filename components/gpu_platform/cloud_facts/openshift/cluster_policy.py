"""What of the GPU Operator's Helm values reaches a cluster where OLM installs the operator: the ClusterPolicy
spec sections the library writes from them (the chart's ``templates/clusterpolicy.yaml`` at v26.7.0 maps each
values section of the same name)."""

from __future__ import annotations

CLUSTER_POLICY_SECTIONS = (
    "operator",
    "daemonsets",
    "driver",
    "toolkit",
    "devicePlugin",
    "dcgm",
    "dcgmExporter",
    "gfd",
    "mig",
    "migManager",
    "nodeStatusExporter",
    "validator",
)
"""Sections the library's values may set: the ClusterPolicy is made of these and nothing else."""
