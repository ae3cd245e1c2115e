"""Checks shared by the stack file and the components, each written once: pools, clusters, drivers, zones,
capacity, networks and Kubernetes names.

The stack file (``gpu_platform.stack.load_platform``) and each component's arguments run the same functions;
only where a problem is filed differs. Each add-on's own checks are ``addons/<add-on>/checks.py``.
"""
