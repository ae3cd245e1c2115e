"""GKE GPUDirect: the extra VPCs, the cluster's ``Network`` objects, Google's NCCL plugin DaemonSets and what a
training pod must carry, for every ``gpudirect`` pool of a cluster.

Google's documented setup (cloud_facts.gke.gpudirect has the sources), as data:

- **VPCs**: TCPX/TCPXO nodes put each extra gVNIC in a VPC of its own (``<cluster>-gpu-<i>``, MTU 8244, a
  firewall rule letting the GPU subnets reach each other); A3 Ultra/A4 nodes a second gVNIC in
  ``<cluster>-gvnic-1`` and their 8 RDMA NICs in ``<cluster>-rdma``, a VPC with the zone's RoCE network profile
  (``<zone>-vpc-roce``) and one subnet per NIC (MTU 8896). Pools of one path share the VPCs: a node NIC needs
  its own VPC, not its own pool's. TCPX uses the first 4 of TCPXO's 8 VPCs.
- **Addresses**: one range (``gpu_network_cidr``, default 192.168.0.0/16 as Google's guides use) split
  without overlap (``cloud_facts.gke.gpudirect.GpuNetworkLayout``): with the default, the gVNIC subnets ``/20`` each
  in its lower half, ``gvnic-1`` the next ``/18``, the RDMA subnets ``/21`` each in the last ``/18``.
- **Kubernetes**: per NIC one ``GKENetworkParamSet`` (VPC, subnet, ``deviceMode`` ``NetDevice`` or ``RDMA``)
  and one ``Network`` of type ``Device`` naming it (``networking.gke.io/v1``, GKE installs the CRDs with
  multi-networking); the names are Google's (``vpc1``.., ``gvnic-1``, ``rdma-0``..).
- **DaemonSets** in ``kube-system`` on the pools' nodes only (``gpu-platform.io/gpudirect`` label), tolerating
  their taints: the NCCL plugin installer of each path at its pinned image and, for TCPX/TCPXO, the NRI device
  injector that hands the GPU devices to the daemon sidecar.
- **Pods**: ``pod_requirements``: the interface annotations, the daemon sidecar (TCPX/TCPXO), the host paths,
  the environment; exposed per pool as the stack output ``gpudirectPods``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_platform import versions
from gpu_platform.args.validate import check_arguments
from gpu_platform.catalog.gpudirect import GpuDirect, GpuDirectKind, GpuNic
from gpu_platform.cloud_facts.gke.gpudirect import DEFAULT_GPU_NETWORK_CIDR, GpuNetworkLayout
from gpu_platform.cloud_facts.gke.profile import gpu_network_problems
from gpu_platform.clouds.gke.args import GkeGpuDirectArgs
from gpu_platform.errors import Problems
from gpu_platform.mirror import Mirror
from gpu_platform.plans.mirror import mirrored_object
from gpu_platform.plans.node_daemonsets import GPUDIRECT_DAEMONSET_REQUESTS
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.cluster_pools import resolve_cluster_pools
from gpu_platform.resolve.mirror import resolve_mirror
from gpu_platform.scheduling import GPUDIRECT_LABEL, node_agent_tolerations

NETWORKING_API = "networking.gke.io/v1"
NAMESPACE = "kube-system"
"""Google's manifests run there: GKE admits ``system-node-critical`` pods there without a quota."""
NVIDIA_LIB_HOST = "/home/kubernetes/bin/nvidia/lib64"
"""Where the installers put the NCCL plugin (and GKE's driver puts its libraries) on COS nodes."""
GIB_HOST = "/home/kubernetes/bin/gib"
PAUSE_IMAGE = versions.GKE_DRIVER_INSTALLER_PAUSE_IMAGE
DEFAULT_INTERFACE = "eth0"


@dataclass(frozen=True)
class GpuSubnet:
    name: str
    """Compute Engine subnet name."""
    cidr: str
    nic: GpuNic


@dataclass(frozen=True)
class GpuVpc:
    key: str
    """Suffix of the Pulumi resource names."""
    name: str
    """Compute Engine network name."""
    mtu: int
    subnets: tuple[GpuSubnet, ...]
    roce_zone: str | None = None
    """The zone whose RoCE network profile the VPC has (RDMA NICs); ``None`` for gVNIC VPCs."""

    @property
    def firewall(self) -> bool:
        """gVNIC VPCs get a rule letting the GPU subnets reach each other (VPCs deny ingress by default); the
        RoCE VPC carries RDMA only and gets none (Cluster Toolkit ``gpu-rdma-vpc``)."""
        return self.roce_zone is None


@dataclass(frozen=True)
class GkeGpuDirectPlan:
    cluster: str
    region: str
    pools: tuple[GpuPool, ...]
    """The ``gpudirect`` pools served."""
    vpcs: tuple[GpuVpc, ...]
    inputs: Mapping[str, Any] = field(default_factory=dict)
    """``project`` (optional)."""
    protect: bool = True
    network: str = DEFAULT_GPU_NETWORK_CIDR
    """The range every subnet comes from (the gVNIC VPCs' firewall rules admit it)."""
    mirror: Mirror | None = None
    """Where the DaemonSets' and the pods' sidecar images come from instead of upstream."""

    @property
    def kinds(self) -> tuple[GpuDirectKind, ...]:
        return tuple(sorted({p.gpudirect.kind for p in self.pools if p.gpudirect is not None}))

    @property
    def subnets(self) -> dict[str, tuple[GpuVpc, GpuSubnet]]:
        """By Kubernetes network name (``vpc1``, ``rdma-0``)."""
        return {s.nic.network: (vpc, s) for vpc in self.vpcs for s in vpc.subnets}

    def node_networks(self, g: GpuDirect) -> list[tuple[str, str]]:
        """``(network, subnetwork)`` names a node pool of path ``g`` attaches, in NIC order."""
        by_name = self.subnets
        return [(by_name[n.network][0].name, by_name[n.network][1].name) for n in g.nics]


def _widest(paths: Sequence[GpuDirect], kinds: Sequence[str]) -> GpuDirect | None:
    """The path of ``kinds`` with the most NICs: the others attach a prefix of its subnets (TCPX the first 4 of
    TCPXO's 8 VPCs, A4X the first 4 of A4's 8 RDMA subnets)."""
    return max((g for g in paths if g.kind in kinds), key=lambda g: (g.gvnics, g.rdma_nics), default=None)


def _vpcs(cluster: str, pools: Sequence[GpuPool], network: str) -> tuple[GpuVpc, ...]:
    paths = [p.gpudirect for p in pools if p.gpudirect is not None]
    layout = GpuNetworkLayout.of(network)
    out: list[GpuVpc] = []
    if (tcp := _widest(paths, ("tcpx", "tcpxo"))) is not None:
        for i, (nic, cidr) in enumerate(zip(tcp.nics, layout.gvnic_subnets, strict=False), start=1):
            name = f"{cluster}-gpu-{i}"
            out.append(GpuVpc(f"gpu-{i}", name, tcp.mtu, (GpuSubnet(f"{name}-sub", str(cidr), nic),)))
    if (rdma := _widest(paths, ("rdma",))) is not None:
        zone = next(
            p.zones[0] for p in pools if p.gpudirect is not None and p.gpudirect.kind == "rdma" and p.zones
        )
        gvnic, *nics = rdma.nics
        name = f"{cluster}-gvnic-1"
        second = GpuSubnet(f"{name}-sub", str(layout.second_gvnic), gvnic)
        out.append(GpuVpc("gvnic-1", name, rdma.mtu, (second,)))
        subnets = tuple(
            GpuSubnet(f"{cluster}-rdma-sub-{i}", str(cidr), nic)
            for i, (nic, cidr) in enumerate(zip(nics, layout.rdma_subnets, strict=False))
        )
        out.append(GpuVpc("rdma", f"{cluster}-rdma", rdma.mtu, subnets, roce_zone=zone))
    return tuple(out)


def gpudirect_plan(
    cluster: str,
    region: str,
    pools: Sequence[GpuPool],
    inputs: Mapping[str, Any] | None = None,
    protect: bool = True,
    network: str | None = None,
    mirror: Mirror | None = None,
) -> GkeGpuDirectPlan:
    """The plan of checked pools; ``network``: the subnets' range (checked by ``profile.gpu_network_problems``);
    ``mirror``: where the images come from."""
    served = tuple(p for p in pools if p.gpudirect is not None)
    network = network or DEFAULT_GPU_NETWORK_CIDR
    vpcs = _vpcs(cluster, served, network)
    return GkeGpuDirectPlan(cluster, region, served, vpcs, dict(inputs or {}), protect, network, mirror)


def gke_gpudirect_plan(args: GkeGpuDirectArgs) -> GkeGpuDirectPlan:
    """``GkeGpuDirect``'s arguments checked: at least one pool with ``gpudirect``."""
    p = Problems()
    checked = check_arguments(GkeGpuDirectArgs, args, p)
    pools: list[GpuPool] = []
    if checked is not None:
        pools = resolve_cluster_pools("gke", checked["pools"], None, lambda i: p.at("pools", i)).pools
        if not p.count() and not any(pool.gpudirect for pool in pools):
            p.add(("pools",), "no pool sets gpudirect: true; there is nothing to set up")
        network = checked.get("gpu_network_cidr", DEFAULT_GPU_NETWORK_CIDR)
        gpu_network_problems(network, checked.get("cluster_network_cidr"), pools, p)
    mirror = resolve_mirror((checked or {}).get("mirror"), p.at("mirror"))
    p.raise_for_arguments()
    assert checked is not None
    inputs = {"project": checked["project"]} if "project" in checked else {}
    return gpudirect_plan(
        checked["cluster_name"],
        checked["region"],
        pools,
        inputs,
        checked.get("protect", True),
        checked.get("gpu_network_cidr"),
        mirror,
    )


# --- Kubernetes objects ------------------------------------------------------------------------------


def network_objects(plan: GkeGpuDirectPlan) -> list[dict[str, Any]]:
    """Per NIC a ``GKENetworkParamSet`` (VPC, subnet, device mode) and the ``Network`` that names it."""
    out: list[dict[str, Any]] = []
    for network, (vpc, subnet) in plan.subnets.items():
        out.append(
            {
                "apiVersion": NETWORKING_API,
                "kind": "GKENetworkParamSet",
                "metadata": {"name": network},
                "spec": {"vpc": vpc.name, "vpcSubnet": subnet.name, "deviceMode": subnet.nic.device_mode},
            }
        )
        out.append(
            {
                "apiVersion": NETWORKING_API,
                "kind": "Network",
                "metadata": {"name": network},
                "spec": {
                    "type": "Device",
                    "parametersRef": {
                        "group": "networking.gke.io",
                        "kind": "GKENetworkParamSet",
                        "name": network,
                    },
                },
            }
        )
    return out


def _tolerations(pools: Sequence[GpuPool]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for pool in pools:
        out += [t for t in node_agent_tolerations(pool) if t not in out]
    return out


def _daemonset(
    name: str, kinds: Sequence[str], pools: Sequence[GpuPool], pod: dict[str, Any], arch: str | None = None
) -> dict[str, Any]:
    """On the nodes of the pools of ``kinds`` (of ``arch`` only, when given: its image is built for one)."""
    served = [
        p for p in pools if p.gpudirect is not None and p.gpudirect.kind in kinds and arch in (None, _arch(p))
    ]
    labels = {"k8s-app": name}
    affinity = [{"key": GPUDIRECT_LABEL, "operator": "In", "values": sorted(kinds)}]
    if arch is not None:
        affinity.append({"key": ARCH_LABEL, "operator": "In", "values": [arch]})
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": labels},
        "spec": {
            "selector": {"matchLabels": labels},
            "updateStrategy": {"type": "RollingUpdate"},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "priorityClassName": "system-node-critical",
                    "affinity": {
                        "nodeAffinity": {
                            "requiredDuringSchedulingIgnoredDuringExecution": {
                                "nodeSelectorTerms": [{"matchExpressions": affinity}]
                            }
                        }
                    },
                    "tolerations": _tolerations(served),
                    "hostNetwork": True,
                    "hostPID": True,
                    **pod,
                },
            },
        },
    }


def _cpu(key: str) -> dict[str, Any]:
    return {"requests": {"cpu": f"{GPUDIRECT_DAEMONSET_REQUESTS[key].cpu_millicores}m"}}


_PAUSE = {"name": "pause", "image": PAUSE_IMAGE}

# The TCPXO pre-installation step, as Google's installer runs it on the host: accept the data path's TCP,
# load the dma-buf import helper and expose the NICs' aperture devices to the daemon sidecar.
_TCPXO_HOST_SETUP = """\
/sbin/iptables -I INPUT -p tcp -m tcp -j ACCEPT && modprobe import-helper
sudo mkdir -p /dev/aperture_devices
while IFS= read -r line; do
  BDF=$( echo "$line" | awk '{print $1}' );
  target_aperture_path="/dev/aperture_devices/$BDF"
  host_aperture_device=$(readlink -f "/sys/bus/pci/devices/$BDF");
  sudo mkdir -p $target_aperture_path;
  sudo umount -R $target_aperture_path;
  sudo mount --bind $host_aperture_device $target_aperture_path;
done < <(lspci -nn -D | grep '1ae0:0084')
if [ -d /dev/aperture_devices ]; then
    chmod -R a+r /dev/aperture_devices/
    chmod a+rw /dev/aperture_devices/*/resource*
fi
"""


def _tcp_installer(kind: str, image: str, pools: Sequence[GpuPool]) -> dict[str, Any]:
    init: list[dict[str, Any]] = []
    if kind == "tcpxo":
        init.append(
            {
                "name": "pre-installation",
                "image": versions.GPUDIRECT_HOST_SHELL_IMAGE,
                "securityContext": {"privileged": True},
                "command": ["nsenter", "-at", "1", "--", "sh", "-c", _TCPXO_HOST_SETUP],
            }
        )
    init.append(
        {
            "name": f"nccl-{kind}-installer",
            "image": image,
            "resources": _cpu("ncclInstaller"),
            "securityContext": {"privileged": True},
            "volumeMounts": [
                {"name": "var-lib", "mountPath": "/var/lib"},
                {"name": "library-dir-host", "mountPath": "/usr/local"},
            ],
            "command": ["/bin/sh", "-c"],
            "args": [
                "set -ex\n"
                + ("chmod 755 /scripts/container_entry.sh\n" if kind == "tcpxo" else "")
                + "/scripts/container_entry.sh install --install-nccl\n"
                "mkdir -p /usr/local/nvidia/lib64\n"
                f"cp -r /var/lib/{kind}/lib64/. /usr/local/nvidia/lib64\n"
                'echo "installation finishes"\n'
            ],
        }
    )
    pod = {
        "volumes": [
            {"name": "var-lib", "hostPath": {"path": "/var/lib"}},
            {"name": "library-dir-host", "hostPath": {"path": "/home/kubernetes/bin"}},
        ],
        "initContainers": init,
        "containers": [_PAUSE],
    }
    return _daemonset(f"nccl-{kind}-installer", [kind], pools, pod)


ARCH_LABEL = "kubernetes.io/arch"
GIB_IMAGES = versions.NCCL_GIB_INSTALLER_IMAGES
"""Google's gIB installer per node architecture (one DaemonSet each; the same command)."""


def _arch(pool: GpuPool) -> str:
    return pool.machine.cpu_arch if pool.machine is not None else "amd64"


def _rdma_installers(pools: Sequence[GpuPool]) -> list[dict[str, Any]]:
    """One gIB installer per architecture of the RDMA pools: ``nccl-rdma-installer`` (amd64; selecting its
    architecture only when Arm pools are there too) and ``nccl-rdma-installer-arm64``."""
    arches = sorted({_arch(p) for p in pools if p.gpudirect is not None and p.gpudirect.kind == "rdma"})
    return [_rdma_installer(pools, arch, mixed=len(arches) > 1) for arch in arches]


def _rdma_installer(pools: Sequence[GpuPool], arch: str, mixed: bool) -> dict[str, Any]:
    pod = {
        "volumes": [
            {"name": "library-dir-host", "hostPath": {"path": NVIDIA_LIB_HOST, "type": "DirectoryOrCreate"}},
            {"name": "gib", "hostPath": {"path": GIB_HOST}},
        ],
        "initContainers": [
            {
                "name": "nccl-rdma-installer",
                "image": GIB_IMAGES[arch],
                "resources": _cpu("ncclInstaller"),
                "securityContext": {"privileged": True},
                "volumeMounts": [
                    {"name": "library-dir-host", "mountPath": f"/usr/local{NVIDIA_LIB_HOST}"},
                    {"name": "gib", "mountPath": f"/usr/local{GIB_HOST}"},
                ],
                "command": ["/bin/sh", "-c"],
                "args": [
                    "set -ex\n"
                    "/scripts/container_entry.sh install\n"
                    f"cp -r /var/lib/gib/lib64/. /usr/local{NVIDIA_LIB_HOST}\n"
                    f"cp -r /var/lib/gib/. /usr/local{GIB_HOST}\n"
                    'echo "installation finishes"\n'
                ],
            }
        ],
        "containers": [_PAUSE],
    }
    if arch == "amd64":
        return _daemonset("nccl-rdma-installer", ["rdma"], pools, pod, arch if mixed else None)
    return _daemonset(f"nccl-rdma-installer-{arch}", ["rdma"], pools, pod, arch)


def _nri_injector(kinds: Sequence[str], pools: Sequence[GpuPool]) -> dict[str, Any]:
    pod = {
        "containers": [
            {
                "name": "device-injector",
                "image": versions.NRI_DEVICE_INJECTOR_IMAGE,
                "resources": _cpu("nriDeviceInjector"),
                "securityContext": {"privileged": True},
                "volumeMounts": [
                    {"name": "dev", "mountPath": "/dev"},
                    {"name": "nri", "mountPath": "/var/run/nri"},
                ],
            }
        ],
        "volumes": [
            {"name": "nri", "hostPath": {"path": "/var/run/nri"}},
            {"name": "dev", "hostPath": {"path": "/dev"}},
        ],
    }
    return _daemonset("device-injector", kinds, pools, pod)


def daemonsets(plan: GkeGpuDirectPlan) -> list[dict[str, Any]]:
    """The NCCL plugin installer of each path the pools use, and the NRI device injector for TCPX/TCPXO."""
    kinds = plan.kinds
    out: list[dict[str, Any]] = []
    if "tcpx" in kinds:
        out.append(_tcp_installer("tcpx", versions.NCCL_TCPX_INSTALLER_IMAGE, plan.pools))
    if "tcpxo" in kinds:
        out.append(_tcp_installer("tcpxo", versions.NCCL_TCPXO_INSTALLER_IMAGE, plan.pools))
    if "rdma" in kinds:
        out += _rdma_installers(plan.pools)
    if tcp := [k for k in kinds if k != "rdma"]:
        out.append(_nri_injector(tcp, plan.pools))
    return [mirrored_object(ds, plan.mirror) for ds in out]


# --- what a training pod carries -----------------------------------------------------------------------

_GPU_DEVICES = [*(f"/dev/nvidia{i}" for i in range(8)), "/dev/nvidiactl", "/dev/nvidia-uvm"]


def _interfaces(g: GpuDirect) -> str:
    nics = [{"interfaceName": DEFAULT_INTERFACE, "network": "default"}]
    nics += [{"interfaceName": n.interface, "network": n.network} for n in g.pod_nics]
    # One interface per line, as Google's manifests write it.
    return "[\n" + ",\n".join(f"  {json.dumps(n)}" for n in nics) + "\n]\n"


def _devices(paths: Sequence[str]) -> str:
    return "".join(f"- path: {p}\n" for p in paths)


_NVIDIA_HOST = {"name": "nvidia-install-dir-host", "hostPath": {"path": "/home/kubernetes/bin/nvidia"}}
_NVIDIA_MOUNT = {"name": "nvidia-install-dir-host", "mountPath": "/usr/local/nvidia"}
_LIB_PATH = {"name": "LD_LIBRARY_PATH", "value": "/usr/local/nvidia/lib64"}
_SHM = {"name": "shared-memory", "emptyDir": {"medium": "Memory", "sizeLimit": "250Gi"}}
_SHM_MOUNT = {"name": "shared-memory", "mountPath": "/dev/shm"}
_HOST_SYS = [
    {"name": "sys", "hostPath": {"path": "/sys"}},
    {"name": "proc-sys", "hostPath": {"path": "/proc/sys"}},
]
_DAEMON_MOUNTS = [
    _NVIDIA_MOUNT,
    {"name": "sys", "mountPath": "/hostsysfs"},
    {"name": "proc-sys", "mountPath": "/hostprocsysfs"},
]


def pod_requirements(g: GpuDirect) -> dict[str, Any]:
    """What a pod using all 8 GPUs of a node must carry for NCCL to use the extra NICs: pod ``annotations``,
    ``volumes``, the ``sidecars`` to add (TCPX/TCPXO: the receive-data-path daemon) and, for every container
    that requests GPUs, ``env``, ``volumeMounts`` and ``command`` (a line to run before the training
    command). From Google's pod manifests (container-engine-accelerators ``gpudirect-tcpxo/nccl-test-latest.yaml``,
    ``gpudirect-tcpx/nccl-test-latest.yaml``, ``gpudirect-rdma/nccl-test-a4.yaml``; Cluster Toolkit
    ``enable-tcpxo-in-workload.py``; the TCPXO release notes for ``nccl-env-profile.sh``)."""
    return copy.deepcopy(_pod_requirements(g))  # the caller may edit it; the module's pieces stay intact


def _pod_requirements(g: GpuDirect) -> dict[str, Any]:
    annotations = {
        "networking.gke.io/default-interface": DEFAULT_INTERFACE,
        "networking.gke.io/interfaces": _interfaces(g),
    }
    if g.kind == "rdma":
        return {
            "annotations": annotations,
            "volumes": [_NVIDIA_HOST, {"name": "gib", "hostPath": {"path": GIB_HOST}}, _SHM],
            "sidecars": [],
            "env": [_LIB_PATH],
            "volumeMounts": [_NVIDIA_MOUNT, {"name": "gib", "mountPath": "/usr/local/gib"}, _SHM_MOUNT],
            "command": "source /usr/local/gib/scripts/set_nccl_env.sh",
        }
    devices = _GPU_DEVICES + (["/dev/dmabuf_import_helper"] if g.kind == "tcpxo" else [])
    annotations[f"devices.gke.io/container.{g.kind}-daemon"] = _devices(devices)
    return {"annotations": annotations, **(_tcpxo_pod(g) if g.kind == "tcpxo" else _tcpx_pod(g))}


def _tcpxo_pod(g: GpuDirect) -> dict[str, Any]:
    sidecar = {
        "name": "tcpxo-daemon",
        "image": versions.TCPXO_DAEMON_IMAGE,
        "command": ["/bin/sh", "-c"],
        "args": [
            "set -ex\nchmod 755 /fts/entrypoint_rxdm_container.sh\n"
            f"/fts/entrypoint_rxdm_container.sh --num_hops=2 --num_nics={g.gvnics} --uid= --alsologtostderr\n"
        ],
        "securityContext": {"capabilities": {"add": ["NET_ADMIN", "NET_BIND_SERVICE"]}},
        "volumeMounts": _DAEMON_MOUNTS,
        "env": [_LIB_PATH],
    }
    aperture = "/dev/aperture_devices"
    return {
        "volumes": [
            _NVIDIA_HOST,
            *_HOST_SYS,
            {"name": "aperture-devices", "hostPath": {"path": aperture}},
            _SHM,
        ],
        "sidecars": [sidecar],
        "env": [
            _LIB_PATH,
            {"name": "NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY", "value": aperture},
            {"name": "NCCL_LIB_DIR", "value": "/usr/local/nvidia/lib64"},
        ],
        "volumeMounts": [_NVIDIA_MOUNT, _SHM_MOUNT, {"name": "aperture-devices", "mountPath": aperture}],
        "command": "source ${NCCL_LIB_DIR}/nccl-env-profile.sh",
    }


def _tcpx_pod(g: GpuDirect) -> dict[str, Any]:
    socket = {"name": "tcpx-socket", "hostPath": {"path": "/run/tcpx"}}
    sidecar = {
        "name": "tcpx-daemon",
        "image": versions.TCPX_DAEMON_IMAGE,
        "command": [
            "/tcpgpudmarxd/build/app/tcpgpudmarxd",
            *("--gpu_nic_preset", "a3vm", "--gpu_shmem_type", "fd", "--uds_path", "/run/tcpx"),
            *("--setup_param", "--verbose 128 2 0"),
        ],
        "securityContext": {"capabilities": {"add": ["NET_ADMIN"]}},
        "volumeMounts": [*_DAEMON_MOUNTS, {"name": "tcpx-socket", "mountPath": "/run/tcpx"}],
        "env": [_LIB_PATH],
    }
    return {
        "volumes": [_NVIDIA_HOST, *_HOST_SYS, socket, _SHM],
        "sidecars": [sidecar],
        "env": [_LIB_PATH],
        # The plugin reaches the daemon over its socket, which Google's pods mount at /tmp.
        "volumeMounts": [_NVIDIA_MOUNT, _SHM_MOUNT, {"name": "tcpx-socket", "mountPath": "/tmp"}],
        "command": "",
    }


def pods_by_pool(plan: GkeGpuDirectPlan) -> dict[str, dict[str, Any]]:
    """``pod_requirements`` of each served pool, by pool name (the stack output ``gpudirectPods``), its sidecars'
    images from the plan's mirror."""
    out = {p.name: pod_requirements(p.gpudirect) for p in plan.pools if p.gpudirect is not None}
    for pod in out.values():
        pod["sidecars"] = mirrored_object({"containers": pod["sidecars"]}, plan.mirror)["containers"]
    return out
