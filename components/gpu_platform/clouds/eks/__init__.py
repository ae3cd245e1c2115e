"""EKS: its profile, plans, components (cluster, node groups, Karpenter, Cluster Autoscaler, EFA) and stack wiring."""
