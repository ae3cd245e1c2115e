"""AKS's facts: its profile, machine table, allocatable model and resource types."""
