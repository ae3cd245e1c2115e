"""Training pools whose jobs Kueue places by network topology, one stack file per cloud.

The library's own stack program: each ``Pulumi.<stack>.yaml`` names a cloud, a multi-node GPU pool with
``topology: true`` (and compact placement where the cloud offers it), and a Kueue queue for a team. The
plan then holds a Kueue ``Topology`` built from the node labels that cloud sets on that machine type, the
pool's ResourceFlavor naming it, and the quota of every resource the training pods request. README.md
shows the JobSet/TrainJob annotations that ask for a block, rack or node.
"""

from gpu_platform.stack import main

main()
