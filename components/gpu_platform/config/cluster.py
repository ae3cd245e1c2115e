"""Config schema for the cluster: create one, attach to one by name, or use an existing kubeconfig."""

from __future__ import annotations

from pydantic import Field

from gpu_platform.config.model import ConfigModel


class SystemPoolConfig(ConfigModel):
    """Small untainted pool for operators and ordinary pods."""

    machine_type: str | None = None
    """Default per cloud: ``e2-standard-4``, ``m6i.large``, ``Standard_D4s_v5``."""
    min_nodes: int = Field(default=1, ge=1)
    max_nodes: int = Field(default=3, ge=1)


class StackReferenceConfig(ConfigModel):
    stack: str
    """Fully qualified stack name (``org/infra/prod``)."""
    output: str = "kubeconfig"


class ClusterConfig(ConfigModel):
    name: str = Field(pattern=r"^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$")
    create: bool = True
    """``true``: create the cluster. ``false``: attach the GPU pools to a cluster made elsewhere."""
    region: str | None = None
    """GKE location, AWS region or Azure location."""
    project: str | None = None
    """GKE: the Google Cloud project."""
    resource_group: str | None = None
    """AKS: the resource group."""
    kubernetes_version: str | None = None
    vpc_cidr: str = "10.0.0.0/16"
    system_pool: SystemPoolConfig = Field(default_factory=SystemPoolConfig)
    kubeconfig: str | None = None
    """Existing clusters (or attached ones): kubeconfig, normally a ``secure:`` value."""
    kubeconfig_stack_reference: StackReferenceConfig | None = None
    """Existing clusters: read the kubeconfig from another stack's output instead."""
    existing_node_role_arn: str | None = None
    """EKS attach mode: IAM role for the GPU node groups."""
    existing_subnet_ids: list[str] = Field(default_factory=list)
    """EKS attach mode: subnets for the GPU node groups."""
