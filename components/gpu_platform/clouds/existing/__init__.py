"""A cluster made elsewhere, reached through a kubeconfig."""
