"""Yandex Managed Service for Kubernetes: node groups made elsewhere, declared as pools."""
