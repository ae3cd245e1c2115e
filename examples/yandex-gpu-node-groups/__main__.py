"""A platform repo that runs the library's own stack program against an existing cluster.

No cloud resources: the kubeconfig comes from secret config, the GPU nodes' facts are declared in
``Pulumi.example.yaml``, and the GPU Operator, Kueue quotas and KServe services derive from them.
Label and taint the nodes as ``gpu-platform plan`` shows under each pool (``gpu-platform.io/pool``
and ``nvidia.com/gpu=present:NoSchedule``): on an existing cluster the library cannot set them.
"""

from gpu_platform.stack import main

main()
