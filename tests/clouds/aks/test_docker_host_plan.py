"""A Docker host on Azure: the VM, NIC and public IP inputs of its plan are what azure-native accepts."""

from __future__ import annotations

from gpu_platform.clouds.aks import docker_host_plan as azure
from tests.support.docker_host import plan_for


def test_azure_inputs_match_azure_native() -> None:
    import pulumi_azure_native.compute as compute
    import pulumi_azure_native.network as network

    from tests.support.sdk_inputs import sdk_input_problems

    for extra in ({}, {"spot": True, "public_ip": True}):
        plan = plan_for("aks", **extra)
        assert sdk_input_problems(network.PublicIPAddress, azure.public_ip_inputs(plan)) == []
        assert sdk_input_problems(network.NetworkInterface, azure.nic_inputs(plan, "/ip")) == []
        assert sdk_input_problems(compute.VirtualMachine, azure.vm_inputs(plan, "host", "/nic")) == []
