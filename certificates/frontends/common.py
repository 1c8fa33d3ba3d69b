"""What every command shares: exit codes, the usage error, argument types, file writing.

Kept free of numerical imports so that ``attncert --help`` starts fast.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path
from typing import NoReturn

from attncert.certificates.engine.plain import to_jsonable as to_jsonable  # re-exported for the writers

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


def dump_json(data: dict) -> str:
    return json.dumps(data, indent=2, sort_keys=False) + "\n"
