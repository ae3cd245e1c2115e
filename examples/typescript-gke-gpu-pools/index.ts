// A GKE cluster with two tainted GPU pools, the NVIDIA GPU Operator and Kueue, from TypeScript.
//
// gpu-platform is a Python library and a source-based Pulumi component package: `pulumi package add`
// generates the `@pulumi/gpu-platform` SDK (sdks/gpu-platform) from its schema, and the Python provider
// builds the resources. GpuPlatform takes the pool list once and makes the cluster's node pools, the GPU
// Operator's device-plugin configs and Kueue's flavors from it, with the same checks as a stack file.
import * as pulumi from "@pulumi/pulumi";
import * as k8s from "@pulumi/kubernetes";
import * as gpu from "@pulumi/gpu-platform";

const config = new pulumi.Config();
const gcp = new pulumi.Config("gcp");
const project = gcp.require("project");
const region = gcp.require("region");

const platform = new gpu.GpuPlatform("platform", {
    cloud: "gke",
    cluster: {
        name: config.get("clusterName") ?? "gpu-demo",
        project,
        region,
        // An example should be easy to tear down; leave this out for a real cluster (deletion protection on).
        disposable: true,
        systemPool: { machineType: "e2-standard-4", minNodes: 1, maxNodes: 3 },
    },
    gpuPools: [
        // Spot L4s, shared 4 ways by the GPU Operator's device plugin (time-slicing: no memory isolation).
        {
            name: "l4-spot",
            machineType: "g2-standard-8",
            maxNodes: 4,
            spot: true,
            sharing: { mode: "time-slicing", replicas: 4 },
        },
        // GKE-native MIG: seven isolated 1g.5gb slices per A100 40GB, fixed per pool.
        {
            name: "a100-mig",
            machineType: "a2-highgpu-1g",
            maxNodes: 2,
            sharing: { mode: "mig", managedBy: "cloud", mig: { layout: "all-1g.5gb" } },
        },
    ],
    // "auto" on GKE: Google's installer DaemonSet installs the driver, the operator does not.
    gpuOperator: { driver: { owner: "auto" }, dcgmExporter: { enabled: true } },
    kueue: {
        clusterQueues: [{ name: "research", pools: ["l4-spot", "a100-mig"] }],
        teams: [{ name: "ml-research", clusterQueue: "research" }],
    },
});

// The program's own Kubernetes resources go to the new cluster through a provider made from its kubeconfig.
const cluster = new k8s.Provider("gpu-cluster", {
    kubeconfig: platform.kubeconfig,
    enableServerSideApply: true,
});
new k8s.core.v1.Namespace(
    "notebooks",
    { metadata: { name: "notebooks" } },
    { provider: cluster, dependsOn: [platform] },
);

export const clusterName = platform.clusterName;
export const kubeconfig = platform.kubeconfig;
export const gpuModels = platform.gpuPools;
export const clusterQueues = platform.clusterQueues;
