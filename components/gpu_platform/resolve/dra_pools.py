"""What a pool that allocates its GPUs through DRA (``allocation: dra``) cannot be: a pool check every cloud's
pool resolution runs, whether or not the DRA driver add-on is on."""

from __future__ import annotations

from collections.abc import Sequence

from gpu_platform.cloud_facts import clouds_where, profile_of
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool


def _cloud_partitioned_mig() -> str:
    """MIG on DRA pools where the cloud partitions the GPUs (the DRA driver publishes the slices it finds)."""
    return " or ".join(
        f"{q.display}-partitioned MIG ({{{{sharing.managed_by}}}}: cloud on {q.display})"
        for q in clouds_where(lambda q: q.dra_cloud_mig)
    )


def dra_pool_problems(pool: GpuPool, p: Problems) -> None:
    """What a DRA pool cannot be (``p`` is the pool's location). Nothing for device-plugin pools."""
    if not pool.dra:
        return
    s = pool.sharing
    if s.mode in ("time-slicing", "mps", "isolated"):
        p.add(
            ("sharing", "mode"),
            f"'{s.mode}' replicas are a device-plugin feature; on {{{{allocation}}}} 'dra' pods share a GPU by "
            "referencing one ResourceClaim (MPS per claim is the DRA driver's alpha MPSSupport gate): use mode "
            "'none', or allocation 'device-plugin'",
        )
    elif s.mode == "mig" and s.managed_by == "operator":
        p.add(
            ("sharing", "managed_by"),
            "the GPU Operator's MIG manager cannot partition DRA nodes: it does not restart the DRA kubelet "
            "plugin, which publishes the MIG devices it finds at start, and GPU Operator 26.7 supports only "
            f"preconfigured MIG devices with DRA. Use {_cloud_partitioned_mig()}, "
            "or allocation 'device-plugin' for operator-managed MIG",
        )
    elif (
        s.mode == "mig"
        and s.mig_strategy == "single"
        and profile_of(pool.cloud).cloud_mig_strategy != "single"
    ):
        p.add(
            ("sharing", "mig", "strategy"),
            "'single' is how the device plugin advertises MIG devices (as nvidia.com/gpu); the DRA driver publishes "
            "each MIG device with its profile: remove {{mig.strategy}}",
        )
    profile_of(pool.cloud).dra_pool_problems(pool, p)


def dra_pools(pools: Sequence[GpuPool]) -> list[GpuPool]:
    return [p for p in pools if p.dra]
