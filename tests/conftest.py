"""Shared fixtures: one deterministic context for every certificate test."""

import os

# pytest-xdist workers already share the cores: a BLAS thread pool per worker only oversubscribes them
# (small L-BFGS-B solves ran 10x slower). Set before numpy is first imported; a user's setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pytest

from attncert.certificates.engine.model import Context


@pytest.fixture(scope="session")
def ctx() -> Context:
    return Context()
