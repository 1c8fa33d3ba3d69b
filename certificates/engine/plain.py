"""Plain values: evidence fields as JSON-ready data (no numerical imports unless a value needs one).

Used by the reports (JSON, Markdown, HTML) and by the parallel runner, which sends evidence that
cannot be pickled (a lambda in ``details``) back from its workers in this plain form. The
conversion is idempotent, so a report written from plain evidence is the report of the original.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Mapping
from typing import Any


def to_jsonable(value: Any) -> Any:
    """Plain JSON values for evidence fields (SymPy, numpy and enums become strings or numbers)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_jsonable(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if type(value).__module__.startswith("sympy"):
        import sympy as sp

        return sp.sstr(value)
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:  # numpy / torch scalars
        return to_jsonable(value.item())
    if callable(value):
        return getattr(value, "__qualname__", repr(value))
    return str(value)
