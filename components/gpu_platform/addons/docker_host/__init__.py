"""Single GPU hosts for ``docker run --gpus`` and Compose: settings, checks and the cloud-init plan (each cloud's VM is in its cloud folder)."""
