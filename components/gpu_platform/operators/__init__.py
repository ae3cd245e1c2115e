"""Operator components: ``GpuOperator``, ``Kueue``, ``CertManager`` and ``KServe``."""
