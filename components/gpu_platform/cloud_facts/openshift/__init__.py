"""OpenShift's facts: its profile."""
