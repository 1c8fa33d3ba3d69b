"""The array backend layer: numpy by default, torch and cupy through array-api-compat.

Numerical code is written once against ``backend.xp`` (an array-API namespace) and
draws its random numbers through ``backend.standard_normal`` so that a seed means the
same stream on every run of the same backend.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Any

import numpy as np

BACKENDS: tuple[str, ...] = ("numpy", "torch", "cupy")


class BackendUnavailable(ValueError):
    """The requested backend is unknown or not installed."""


@dataclass(frozen=True)
class Backend:
    """An array backend: its ``name``, its array-API namespace ``xp`` and the ``device`` arrays live on."""

    name: str
    xp: Any  # array-API namespace
    device: str

    def asarray(self, x: Any) -> Any:
        if self.name == "torch":
            return self.xp.asarray(x, dtype=self.xp.float64, device=self.device)
        return self.xp.asarray(x, dtype=self.xp.float64)

    def standard_normal(self, seed: int, shape: tuple[int, ...]) -> Any:
        """float64 N(0, 1) draws, reproducible for a given (backend, seed, shape)."""
        if self.name == "torch":
            import torch

            gen = torch.Generator(device=self.device).manual_seed(seed)
            return torch.randn(shape, generator=gen, dtype=torch.float64, device=self.device)
        if self.name == "cupy":
            import cupy

            return cupy.random.default_rng(seed).standard_normal(shape, dtype=cupy.float64)
        return np.random.default_rng(seed).standard_normal(shape)

    def to_numpy(self, x: Any) -> np.ndarray:
        if self.name == "torch":
            return x.detach().cpu().numpy()
        if self.name == "cupy":
            return x.get()
        return np.asarray(x)


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _gpu_count(name: str) -> int:
    try:
        if name == "torch":
            import torch

            return torch.cuda.device_count()
        if name == "cupy":
            import cupy

            return cupy.cuda.runtime.getDeviceCount()
    except Exception:  # a driver-less machine raises from deep inside the library
        return 0
    return 0


def available_backends() -> list[str]:
    """The backends usable here: numpy always, torch and cupy when installed."""
    return [name for name in BACKENDS if name == "numpy" or _installed(name)]


def get_backend(name: str = "numpy") -> Backend:
    """Resolve ``numpy``, ``torch``, ``cupy`` or ``auto`` (a GPU backend when a GPU is present)."""
    if name == "auto":
        for candidate in ("cupy", "torch"):
            if _installed(candidate) and _gpu_count(candidate) > 0:
                return get_backend(candidate)
        return get_backend("numpy")
    if name not in BACKENDS:
        raise BackendUnavailable(f"unknown backend {name!r}; choose one of {', '.join((*BACKENDS, 'auto'))}")
    if not _installed(name):
        # not extras of attncert (on a CUDA machine `pip install torch` pulls the GB-sized CUDA build):
        # the README's commands, by hand
        how = {
            "torch": "pip install torch --index-url https://download.pytorch.org/whl/cpu (the CPU build)",
            "cupy": "pip install cupy-cuda12x (on a machine with CUDA 12)",
        }[name]
        raise BackendUnavailable(f"backend {name!r} is not installed; install it with: {how}")
    import array_api_compat

    if name == "numpy":
        return Backend("numpy", array_api_compat.array_namespace(np.empty(0)), "cpu")
    if name == "torch":
        import torch

        device = "cuda" if _gpu_count("torch") > 0 else "cpu"
        return Backend("torch", array_api_compat.array_namespace(torch.empty(0)), device)
    import cupy

    if _gpu_count("cupy") == 0:
        raise BackendUnavailable("backend 'cupy' is installed but no GPU is visible")
    return Backend("cupy", array_api_compat.array_namespace(cupy.empty(0)), "cuda")
