"""A platform repo that runs the library's stack program with Slurm on an existing cluster's H100 nodes.

No cloud resources: the kubeconfig comes from secret config and the GPU nodes' facts are declared in
``Pulumi.example.yaml``. The ``slurm`` section gives the ``h100`` pool to Slurm (SchedMD Slinky: cert-manager,
the slurm-operator CRDs and operator, and a Slurm cluster whose ``h100`` NodeSet runs a pyxis slurmd on every
H100 node with ``Gres=gpu:h100:8``); Kueue's quotas cover only the ``l4`` pool. See README.md.
"""

from gpu_platform.stack import main

main()
