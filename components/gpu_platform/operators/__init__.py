"""Cluster add-ons installed through Helm and Kubernetes objects: GPU Operator, Kueue, KServe.

Each module holds one component; the values and objects it renders are pure functions of the
resolved pools, so they are tested without mocks and match what node pools carry.
"""
