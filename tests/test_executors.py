"""Sweeps beyond one machine: the dask executor gives the same CSV as the local run (issue 6)."""

import importlib.util
import threading

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


@pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="dask.distributed is not installed")
@pytest.mark.parametrize("address", ["tcp://127.0.0.1:1", "silent", "not-an-address", "tcp://localhost:99999"])
def test_unreachable_scheduler_is_one_line_within_10_s(address, capsys):
    """issue 9 §5: no scheduler (or a peer that is not one) gives one line and exit 2, fast."""
    import socket
    import time

    listener = None
    if address == "silent":  # accepts the connection but never speaks, like a firewall or a foreign service
        listener = socket.create_server(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    start = time.monotonic()
    try:
        assert main(["phase", "--executor", "dask", "--scheduler", address, "--trials", "10", "--seeds", "1"]) == 2
    finally:
        if listener is not None:
            listener.close()
    assert time.monotonic() - start < 10
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--scheduler" in err and "Traceback" not in err


@pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="dask.distributed is not installed")
def test_a_peer_that_speaks_another_protocol_is_refused_before_any_dask_connection(capsys, greeting_peer):
    """issue 9 §5: a foreign service (here one greeting like an SSH server) is told apart by the
    dask handshake's length header on the first plain connection: no dask client connects."""
    address, connections = greeting_peer(b"SSH-2.0-OpenSSH_9.6\r\n")
    assert main(["phase", "--executor", "dask", "--scheduler", address, "--trials", "10", "--seeds", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--scheduler" in err and len(connections) == 1


@pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="dask.distributed is not installed")
def test_a_peer_that_stalls_the_dask_handshake_is_one_line_not_a_hang(capsys, greeting_peer, monkeypatch):
    """A plausible 8-byte frame length and then silence kept dask's Client waiting for ever (its
    own timeout does not cover the handshake); the start now has a hard limit (here 1 s). The
    abandoned start is still waiting when the command returns, so it must be a daemon thread: a
    plain one would keep the process from exiting, the very hang the limit is there to end."""
    from attncert.solvers import sweep

    monkeypatch.setattr(sweep, "HANDSHAKE_LIMIT_S", 1)
    address, _ = greeting_peer((64).to_bytes(8, "little"))
    assert main(["phase", "--executor", "dask", "--scheduler", address, "--trials", "10", "--seeds", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "stalled the dask handshake" in err and "Traceback" not in err
    abandoned = [t for t in threading.enumerate() if t.name == "attncert-dask-start"]
    assert abandoned and all(t.daemon for t in abandoned)
