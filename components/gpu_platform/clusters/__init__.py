"""Greenfield clusters per cloud: ``GkeCluster``, ``EksCluster``, ``AksCluster``.

Each creates the network basics, the control plane, a small untainted system pool for operators and
ordinary pods, and a Kubernetes provider (``k8s_provider``) built from a secret kubeconfig that
authenticates with the cloud's exec plugin. Cloud SDKs load only when a cluster is built.
"""
