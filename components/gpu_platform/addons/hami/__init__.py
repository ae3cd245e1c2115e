"""HAMi: memory-isolated GPU fractions on the pools with ``sharing.mode: isolated``, installed only for them."""
