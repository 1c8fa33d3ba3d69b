"""Sweeps beyond one machine: the dask executor gives the same CSV as the local run (issue 6)."""

import importlib.util

import pytest

from attncert.certificates.frontends.cli import main
from attncert.solvers.sweep import ExecutorUnavailable, get_executor

ARGS = ["phase", "--protocol", "fig7", "--trials", "3000", "--seeds", "3", "--gamma-points", "31", "--seed", "5"]


@pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="dask.distributed is not installed")
def test_local_cluster_gives_the_same_csv_as_the_local_run(tmp_path):
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None, processes=True) as cluster:
        assert main([*ARGS, "--executor", "dask", "--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "dask")]) == 0
    assert main([*ARGS, "--out", str(tmp_path / "local")]) == 0
    for name in ("points.csv", "curves.csv", "gamma_c_per_replicate.csv"):
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()


def test_executor_errors_are_usage_errors(capsys):
    with pytest.raises(ExecutorUnavailable, match="unknown executor"):
        get_executor("spark")
    assert main(["phase", "--executor", "dask"]) == 2
    err = capsys.readouterr().err
    assert ("needs --scheduler" in err) or ("needs dask.distributed" in err)
