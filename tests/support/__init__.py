"""Helpers shared by the tests: CRD/CEL validation, component plans from raw arguments."""
