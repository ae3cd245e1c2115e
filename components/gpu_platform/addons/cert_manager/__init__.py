"""cert-manager, installed once per stack for the webhooks that need certificates (KServe, Slinky)."""
