"""What every command shares: exit codes, the usage error, argument types, file writing.

Kept free of numerical imports so that ``attncert --help`` starts fast.
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import json
import math
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A problem with the command line or an input file: one line, exit code 2, nothing written."""


class Parser(argparse.ArgumentParser):
    """argparse that raises :class:`UsageError` instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def writable(path: str) -> Path:
    """An argparse type: a file path whose folder exists and that is not itself a folder."""
    p = Path(path)
    if not p.parent.is_dir():
        raise argparse.ArgumentTypeError(f"{path}: folder {p.parent} does not exist")
    if p.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is a folder, not a file")
    return p


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file, so a failure leaves nothing half-written.

    The file gets the permissions a plain ``open(path, "w")`` would give (0666 less the umask):
    ``mkstemp`` creates 0600 files, which a web server or another user could not read.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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


def dump_json(data: dict) -> str:
    return json.dumps(data, indent=2, sort_keys=False) + "\n"
