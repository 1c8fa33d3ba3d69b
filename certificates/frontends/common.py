"""What every command shares: exit codes, the usage error, argument types, file writing.

Kept free of numerical imports so that ``attncert --help`` starts fast.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import tempfile
import unicodedata
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NoReturn

from attncert.certificates.engine.plain import to_jsonable as to_jsonable  # re-exported for the writers

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT


class UsageError(Exception):
    """A problem with the command line or an input file: one line, exit code 2, nothing written."""


class Parser(argparse.ArgumentParser):
    """argparse that raises :class:`UsageError` instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _probe(folder: Path) -> str | None:
    """Why nothing can be created in ``folder`` (read-only, /proc, ...), or None: a file is
    created there and removed again, the only check that holds for root too."""
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".attncert-probe.")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    return None


def printable(text: str) -> str:
    """``text`` with every control or format character (Unicode category Cc or Cf: ESC, BEL, bidi marks...)
    written as an escape such as \\x1b: a name from a profile file reaches the terminal, where an ANSI or OSC
    sequence would recolour, clear or retitle it."""
    return "".join(ch if unicodedata.category(ch) not in ("Cc", "Cf") else ascii(ch)[1:-1] for ch in text)


def both_ends(n: int, per_end: int) -> list[int | None]:
    """Row indices of a terminal table of ``n`` rows: all of them, or the first and last ``per_end`` with None
    where the gap goes (rich lays a table out in seconds per thousand rows; the files hold every row)."""
    if n <= 2 * per_end:
        return list(range(n))
    return [*range(per_end), None, *range(n - per_end, n)]


def path_arg(path: str) -> Path:
    """An argparse type: a non-empty path (``Path("")`` would silently mean the current folder)."""
    if not path:
        raise argparse.ArgumentTypeError("the path is empty")
    return Path(path)


def writable(path: str) -> Path:
    """An argparse type: a file path whose folder exists and takes new files, and that is not a
    folder or another non-regular file (a device such as /dev/full would be replaced)."""
    p = path_arg(path)
    if path.endswith(("/", os.sep)):
        raise argparse.ArgumentTypeError(f"{path} names a folder; give a file name")
    if not p.parent.is_dir():
        raise argparse.ArgumentTypeError(f"{path}: folder {p.parent} does not exist")
    if p.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is a folder, not a file")
    if p.exists() and not p.is_file():
        raise argparse.ArgumentTypeError(f"{path} exists and is not a regular file")
    problem = _probe(p.parent)
    if problem:
        raise argparse.ArgumentTypeError(f"{path}: cannot write in {p.parent} ({problem})")
    return p


def preflight_folder(out: Path, names: tuple[str, ...], flag: str = "--out") -> None:
    """Fail before any work when the folder ``out`` cannot receive the files ``names``: an empty
    path, a file in the way of the folder or of one of its ancestors, a folder in the way of an
    output file, or a place where nothing can be created (read-only, /proc). Nothing is created."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"{flag} {out} exists and is not a folder")
    existing = out
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"{flag} {out}: {existing} is a file, not a folder")
    for name in names:
        target = out / name
        if target.exists() and not target.is_file():
            what = "a folder" if target.is_dir() else "not a regular file"
            raise UsageError(f"{flag} {out}: {name} is {what} there; remove it or choose another {flag}")
    problem = _probe(existing)
    if problem:
        raise UsageError(f"{flag} {out}: cannot write in {existing} ({problem})")


@contextlib.contextmanager
def all_or_nothing(out: Path, names: Iterable[str] = ()) -> Iterator[None]:
    """Create the folder ``out`` for the writes in the block; on any failure, Ctrl-C included,
    put back the files ``names`` held before, remove the files the block added and the folders
    created here, then re-raise.

    Each existing file of ``names`` is moved aside (renamed, so nothing is copied) before the block:
    a failed run must not leave the earlier run's results overwritten by part of its own. After a
    successful block the moved files are deleted, except those the block did not write again."""
    created_dirs = []
    probe = out
    while not probe.exists():
        created_dirs.append(probe)
        probe = probe.parent
    before = set(os.listdir(out)) if out.is_dir() else set()
    saved: dict[Path, Path] = {}
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name in names:
            target = out / name
            if target.is_file():
                fd, backup = tempfile.mkstemp(dir=out, prefix=f".{name}.", suffix=".previous")
                os.close(fd)
                os.replace(target, backup)
                saved[target] = Path(backup)
        yield
    except BaseException:
        kept = set()  # a moved file that cannot be put back stays under its temporary name, never deleted
        for target, backup in saved.items():
            try:
                os.replace(backup, target)
            except OSError:
                kept.add(backup.name)
        with contextlib.suppress(OSError):
            for name in set(os.listdir(out)) - before - kept:
                (out / name).unlink(missing_ok=True)
        for folder in created_dirs:
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    for target, backup in saved.items():
        if target.exists():
            backup.unlink()
        else:
            os.replace(backup, target)


def write_all(out: Path, files: dict[str, str]) -> list[Path]:
    """Write every file (each atomically) into the folder ``out``, or none: on a failure the files
    it added are removed and those it overwrote are put back."""
    with all_or_nothing(out, files):
        for name, text in files.items():
            write_atomically(out / name, text)
    return [out / name for name in files]


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
