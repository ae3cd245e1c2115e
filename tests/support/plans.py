"""Component plans from raw arguments, as each component's constructor makes them (checks, then plan)."""

from __future__ import annotations

from typing import Any

from gpu_platform.addons.docker_host.checks import resolve_docker_host
from gpu_platform.addons.docker_host.plan import DockerHostPlan, docker_host_plan
from gpu_platform.addons.kueue.args_checks import resolve_kueue_args
from gpu_platform.addons.kueue.plan import KueuePlan, kueue_plan
from gpu_platform.clouds.aks import checks as aks
from gpu_platform.clouds.aks.infiniband_plan import NetworkOperatorPlan, network_operator_plan
from gpu_platform.clouds.aks.nap_plan import AksNapPoolPlan, aks_nap_pool_plan
from gpu_platform.clouds.aks.node_pool_plan import AksNodePoolPlan, aks_node_pool_plan
from gpu_platform.clouds.eks import checks as eks
from gpu_platform.clouds.eks.autoscaling_plan import (
    ClusterAutoscalerPlan,
    cluster_autoscaler_plan,
)
from gpu_platform.clouds.eks.karpenter_plan import (
    EksKarpenterPlan,
    EksKarpenterPoolPlan,
    eks_karpenter_plan,
    eks_karpenter_pool_plan,
)
from gpu_platform.clouds.eks.node_pool_plan import EksNodePoolPlan, eks_node_pool_plan
from gpu_platform.clouds.gke import checks as gke
from gpu_platform.clouds.gke.compute_class_plan import ComputeClassPlan, compute_class_plan
from gpu_platform.clouds.gke.node_pool_plan import GkeNodePoolPlan, gke_node_pool_plan


def plan_gke_node_pool(args: Any) -> GkeNodePoolPlan:
    return gke_node_pool_plan(*gke.node_pool_args(args))


def plan_eks_node_pool(args: Any) -> EksNodePoolPlan:
    return eks_node_pool_plan(*eks.node_pool_args(args))


def plan_aks_node_pool(args: Any) -> AksNodePoolPlan:
    return aks_node_pool_plan(*aks.node_pool_args(args))


def plan_kueue(args: Any) -> KueuePlan:
    return kueue_plan(*resolve_kueue_args(args))


def plan_gke_compute_class(args: Any) -> ComputeClassPlan:
    return compute_class_plan(*gke.compute_class_args(args))


def plan_eks_karpenter_pool(args: Any) -> EksKarpenterPoolPlan:
    return eks_karpenter_pool_plan(*eks.karpenter_pool_args(args))


def plan_eks_karpenter(args: Any) -> EksKarpenterPlan:
    return eks_karpenter_plan(eks.karpenter_args(args))


def plan_cluster_autoscaler(args: Any) -> ClusterAutoscalerPlan:
    return cluster_autoscaler_plan(*eks.cluster_autoscaler_args(args))


def plan_aks_nap_pool(args: Any) -> AksNapPoolPlan:
    return aks_nap_pool_plan(*aks.nap_pool_args(args))


def plan_network_operator(args: Any) -> NetworkOperatorPlan:
    return network_operator_plan(*aks.network_operator_args(args))


def plan_docker_host(args: Any) -> DockerHostPlan:
    return docker_host_plan(resolve_docker_host(args))
