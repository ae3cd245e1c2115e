"""OpenShift (self-managed, ROSA, ARO): an existing cluster whose GPU Operator is installed through OLM."""
