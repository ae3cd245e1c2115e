"""Slurm on Kubernetes (Slinky's operator and a Slurm cluster, with enroot/pyxis on GPU NodeSets)."""
