"""The workload controllers behind Kueue's integrations: JobSet, LeaderWorkerSet, Kubeflow Trainer and KubeRay."""
