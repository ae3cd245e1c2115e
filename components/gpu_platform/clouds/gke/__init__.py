"""GKE: its profile, plans, components and stack wiring."""
