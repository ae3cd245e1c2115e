"""An existing cluster's facts: its profile."""
