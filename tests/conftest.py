"""Shared fixtures: one deterministic context for every certificate test."""

import pytest

from attncert.certificates.engine.model import Context


@pytest.fixture(scope="session")
def ctx() -> Context:
    return Context()
