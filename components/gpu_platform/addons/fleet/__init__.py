"""A MultiKueue fleet: one Kueue manager cluster dispatching GPU jobs to worker clusters (``GpuFleet``)."""
