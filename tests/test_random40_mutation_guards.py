"""Guards from the fortieth random mutation set (benchmarks/mutations_random40.toml): the torch backend's
arrays on its own device, and the dask log muting that leaves the logger tree as it found it. (The third
survivor, the exact solver's k past the last breakpoint, is a case of set 5's threshold test.)"""

import logging
from typing import Any

import pytest

from attncert.solvers import sweep
from attncert.solvers.backend import Backend, available_backends


class _RecordingNamespace:
    """An array namespace that records the keywords of each ``asarray`` call."""

    float64 = "float64"

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def asarray(self, x: Any, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        return x


def test_torch_backend_makes_its_arrays_on_its_device():
    """On a GPU machine the torch backend's device is "cuda": arrays made without it would land on the
    CPU beside a generator on the GPU. Checked without torch through a recording namespace."""
    xp = _RecordingNamespace()
    Backend("torch", xp, "cuda:1").asarray([1.0])
    assert xp.calls == [{"dtype": "float64", "device": "cuda:1"}]


@pytest.mark.skipif("torch" not in available_backends(), reason="torch is not installed")
def test_torch_backend_arrays_land_on_a_named_device():
    """The same with torch itself, on its "meta" device (shapes without storage; no GPU needed)."""
    import array_api_compat
    import torch

    backend = Backend("torch", array_api_compat.array_namespace(torch.empty(0)), "meta")
    x = backend.asarray([1.0, 2.0])
    assert (x.device.type, x.dtype) == ("meta", torch.float64)


def test_dask_log_muting_leaves_placeholders_alone():
    """A dotted logger name's missing parent is a PlaceHolder with no level. The muting reads it as
    NOTSET and skips it: calling getLogger on it would turn it into a logger for good."""
    logging.getLogger("distributed.attncert_probe.child")  # makes "distributed.attncert_probe" a placeholder
    manager = logging.root.manager
    assert isinstance(manager.loggerDict["distributed.attncert_probe"], logging.PlaceHolder)
    with sweep._dask_logs_muted():
        pass
    assert isinstance(manager.loggerDict["distributed.attncert_probe"], logging.PlaceHolder)
