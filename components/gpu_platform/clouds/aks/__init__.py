"""AKS: its profile, plans, components (cluster, agent pools, Node Auto Provisioning) and stack wiring."""
