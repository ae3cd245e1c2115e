"""GKE's facts: its profile, machine table, allocatable model, GPU zones and resource types."""
