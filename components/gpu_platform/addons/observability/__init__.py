"""GPU metrics: the Prometheus stack or a managed backend, DCGM scrape settings, dashboards, alert rules and GPU health (node-problem-detector and remediation)."""
