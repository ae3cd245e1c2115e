"""NVIDIA's DRA driver: DeviceClasses, ResourceClaimTemplates and ComputeDomains for pools that allocate GPUs through Dynamic Resource Allocation."""
