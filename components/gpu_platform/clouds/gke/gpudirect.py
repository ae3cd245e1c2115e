"""``GkeGpuDirect``: GPUDirect networking for GKE A3/A4 pools, from ``clouds.gke.gpudirect_plan``.

Google Cloud side: the extra VPCs (MTU as documented, the RDMA VPC with the zone's RoCE network profile), a
subnet per NIC and a firewall rule per gVNIC VPC. Cluster side (through the Kubernetes provider in ``opts``):
a ``GKENetworkParamSet`` and a ``Network`` per NIC, each ``Network`` after its parameter set, and Google's
NCCL plugin installer (plus the NRI device injector for TCPX/TCPXO) as DaemonSets on the pools' nodes. The
node pools attach the NICs from ``node_networks``; the cluster must have multi-networking on. Give the cluster's
Kubernetes provider in ``opts`` (``providers=[k8s_provider]``): the Google Cloud resources keep the default one.
"""

from typing import Any

import pulumi
from pulumi_kubernetes.apiextensions import CustomResource

from gpu_platform.cloud_facts.gke.profile import PROFILE
from gpu_platform.clouds.gke.args import GkeGpuDirectArgs
from gpu_platform.clouds.gke.gpudirect_plan import (
    GkeGpuDirectPlan,
    GpuVpc,
    daemonsets,
    gke_gpudirect_plan,
    network_objects,
    pods_by_pool,
)
from gpu_platform.component import PlannedComponent


class GkeGpuDirect(PlannedComponent[GkeGpuDirectPlan]):
    """The extra VPCs, Network objects and NCCL plugin installers of GKE GPUDirect pools."""

    _type_token = "gpu-platform:index:GkeGpuDirect"

    node_networks: pulumi.Output[dict[str, list[dict[str, str]]]]
    """By pool name: the ``network``/``subnetwork`` names of its extra NICs in order, for the node pool's
    ``additional_node_networks``."""
    pods: pulumi.Output[dict[str, Any]]
    """By pool name: what a training pod must carry (annotations, volumes, sidecars, env, volume mounts, the
    line to run first); docs/networking.md shows it applied."""

    def __init__(self, name: str, args: GkeGpuDirectArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. The extra VPCs,
        Network objects and NCCL plugin installers of GKE GPUDirect pools."""
        self._start(name, gke_gpudirect_plan(args), opts)

    def _vpc(self, name: str, plan: GkeGpuDirectPlan, vpc: GpuVpc, project: Any) -> dict[str, Any]:
        import pulumi_gcp.compute as compute

        profile = None
        if vpc.roce_zone is not None:
            profile = pulumi.Output.concat(
                "projects/", project, f"/global/networkProfiles/{vpc.roce_zone}-vpc-roce"
            )
        network = compute.Network(
            f"{name}-{vpc.key}",
            name=vpc.name,
            project=project,
            auto_create_subnetworks=False,
            routing_mode="REGIONAL",
            mtu=vpc.mtu,
            network_profile=profile,
            opts=self.child_opts(protect=plan.protect),
        )
        subnets = {
            s.nic.network: compute.Subnetwork(
                f"{name}-{s.name.removeprefix(plan.cluster + '-')}",
                name=s.name,
                project=project,
                region=plan.region,
                network=network.id,
                ip_cidr_range=s.cidr,
                opts=self.child_opts(protect=plan.protect),
            )
            for s in vpc.subnets
        }
        if vpc.firewall:
            compute.Firewall(
                f"{name}-{vpc.key}-internal",
                name=f"{vpc.name}-internal",
                project=project,
                network=network.id,
                allows=[
                    compute.FirewallAllowArgs(protocol="tcp", ports=["0-65535"]),
                    compute.FirewallAllowArgs(protocol="udp", ports=["0-65535"]),
                    compute.FirewallAllowArgs(protocol="icmp"),
                ],
                source_ranges=[plan.network],
                opts=self.child_opts(),
            )
        return {key: (network, subnet) for key, subnet in subnets.items()}

    def _create(self, name: str, plan: GkeGpuDirectPlan) -> dict[str, Any]:
        PROFILE.sdk(self)  # one line naming the extra when the SDK is missing
        import pulumi_kubernetes as k8s

        project = plan.inputs.get("project")
        made: dict[str, Any] = {}
        for vpc in plan.vpcs:
            made.update(self._vpc(name, plan, vpc, project))
        param_sets: dict[str, Any] = {}
        for obj in network_objects(plan):
            network = obj["metadata"]["name"]
            vpc, subnet = made[network]
            spec = dict(obj["spec"])
            after: list[Any] = []
            if obj["kind"] == "GKENetworkParamSet":
                spec.update(vpc=vpc.name, vpcSubnet=subnet.name)
            else:
                after = [param_sets[network]]
            resource = CustomResource(
                f"{name}-{obj['kind'].lower()}-{network}",
                api_version=obj["apiVersion"],
                kind=obj["kind"],
                metadata=obj["metadata"],
                spec=spec,
                opts=self.child_opts(depends_on=after or None),
            )
            if obj["kind"] == "GKENetworkParamSet":
                param_sets[network] = resource
        for ds in daemonsets(plan):
            k8s.apps.v1.DaemonSet(
                f"{name}-{ds['metadata']['name']}",
                metadata=ds["metadata"],
                spec=ds["spec"],
                opts=self.child_opts(),
            )
        self.node_networks_by_pool = {
            pool.name: [
                {"network": made[n.network][0].name, "subnetwork": made[n.network][1].name}
                for n in pool.gpudirect.nics
            ]
            for pool in plan.pools
            if pool.gpudirect is not None
        }
        self.node_networks = pulumi.Output.from_input(self.node_networks_by_pool)
        self.pods = pulumi.Output.from_input(pods_by_pool(plan))
        return {"node_networks": self.node_networks, "pods": self.pods}
