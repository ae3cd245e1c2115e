"""Kueue: ResourceFlavors from the GPU pools, ClusterQueues whose quotas equal allocatable, LocalQueues per team, admission checks and topology."""
