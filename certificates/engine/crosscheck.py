"""Numeric cross-checks of exact results on random instances, batched on the array backend."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attncert.certificates.engine.model import Context, CrossCheck
from attncert.solvers.backend import Backend, get_backend


def random_instances(
    ctx: Context,
    *,
    description: str,
    n: int,
    width: int,
    errors: Callable[[Backend, Any], Any],
    tolerance: float = 1e-12,
) -> CrossCheck:
    """Draw ``n`` x ``width`` standard normals on the context's backend (seeded by
    ``ctx.seed``) and report the largest absolute error returned by ``errors``."""
    backend = get_backend(ctx.backend)
    draws = backend.standard_normal(ctx.seed, (n, width))
    err = backend.xp.max(backend.xp.abs(errors(backend, draws)))
    return CrossCheck(
        description=description,
        instances=n,
        max_abs_error=float(err),
        tolerance=tolerance,
        backend=backend.name,
    )
