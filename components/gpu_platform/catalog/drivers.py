"""CUDA-to-driver minimums and the driver each install path puts on a node.

Sources: CUDA Toolkit Release Notes, "CUDA Toolkit and Corresponding Driver Versions"
(https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html), and the default ``driver.version`` of
NVIDIA/gpu-operator ``deployments/gpu-operator/values.yaml`` at each release tag.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class DriverVersion:
    """A Linux driver version, compared numerically (``570.26`` < ``570.124.06``)."""

    parts: tuple[int, ...]
    text: str = field(default="", compare=False)

    @classmethod
    def parse(cls, text: str) -> DriverVersion:
        try:
            return cls(tuple(int(p) for p in str(text).strip().split(".")), str(text).strip())
        except ValueError as exc:
            raise ValueError(f"'{text}' is not a driver version like 570.124.06") from exc

    @property
    def branch(self) -> int:
        return self.parts[0]

    def __str__(self) -> str:
        return self.text or ".".join(str(p) for p in self.parts)


# CUDA toolkit (major.minor) -> minimum Linux x86_64 driver at GA.
CUDA_MIN_DRIVER: dict[str, str] = {
    "11.8": "520.61.05",
    "12.0": "525.60.13",
    "12.1": "530.30.02",
    "12.2": "535.54.03",
    "12.3": "545.23.06",
    "12.4": "550.54.14",
    "12.5": "555.42.02",
    "12.6": "560.28.03",
    "12.8": "570.26",
    "12.9": "575.51.03",
    "13.0": "580.65.06",
    "13.1": "590.44.01",
    "13.2": "595.45.04",
}

# GPU Operator chart version -> default driver.version in its values.yaml.
GPU_OPERATOR_DEFAULT_DRIVER: dict[str, str] = {
    "v23.3.0": "525.105.17",
    "v23.6.0": "535.86.10",
    "v23.9.0": "535.104.12",
    "v23.9.2": "550.54.14",
    "v24.3.0": "550.54.15",
    "v24.6.0": "550.90.07",
    "v24.6.2": "550.90.07",
    "v24.9.0": "550.127.05",
    "v24.9.2": "550.144.03",
    "v25.3.0": "570.124.06",
    "v25.3.4": "580.82.07",
    "v25.10.0": "580.95.05",
    "v25.10.1": "580.105.08",
    "v26.3.0": "580.126.20",
    "v26.3.1": "580.126.20",
    "v26.3.2": "580.126.20",
    "v26.3.3": "580.126.20",
    "v26.7.0": "595.91.07",
}


def min_driver_for_cuda(cuda: str) -> DriverVersion:
    """Minimum driver for a CUDA ``major.minor``; raises ``KeyError`` for an unknown release."""
    key = ".".join(str(cuda).split(".")[:2])
    return DriverVersion.parse(CUDA_MIN_DRIVER[key])
