"""GLLM profile files (gllm.md §4.3): JSON (canonical), TOML, or CSV.

All validation of a profile lives here and runs before any solving: every field's type and range,
unknown keys at every level, file references (confined to the profile's folder unless allowed),
and the header of every ``.npy`` file before its data are read. Every problem is reported as
ProfileError("FILE: FIELD: problem") naming the field as the user wrote it; the CLI prints it in
one line with exit code 2. No file content is ever echoed.

Profiles are normalised to the simplex in a scale-safe way: as logarithms shifted by their
log-sum-exp (gllm.md §4.3 rule 1), so weights of 1e200 or 1e-170, energies near the double
maximum, subnormal entries and geometric profiles over thousands of levels are all accepted.
``profile.schema.json`` (in the package's examples folder) is the same format as a JSON Schema.
"""

from __future__ import annotations

import csv
import io
import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

MODES = ("unclipped", "clipped", "regularized", "regularized_clipped")
ZERO_POLICIES = ("error", "delete", "keep_clipped")
TARGET_KINDS = ("probe_weights", "energies", "normalized")
DATA_KINDS = ("second_moments", "variances", "normalized")
GRANULARITIES = ("coordinate", "level", "geometric")
#: limits that keep every run within 2 GB of memory: coordinates of a profile (a solve of 10^6
#: coordinates peaks near 0.5 GB), elements of a .npy file (bootstrap replicates are copied
#: twice while normalised), bytes of a CSV file and fields in it, bytes of a JSON/TOML document
#: (parsed, 32 MB of nested empty lists take about 0.6 GB; long vectors belong in values files)
MAX_COORDINATES = 2_000_000
MAX_NPY_ELEMENTS = 25_000_000
MAX_TEXT_BYTES = 128 * 2**20
MAX_CSV_FIELDS = 4 * MAX_COORDINATES
MAX_DOCUMENT_BYTES = 32 * 2**20
#: the keys each object may hold (gllm.md §4.3); anything else is a typo and an error
TOP_KEYS = ("format", "version", "task", "basis", "target", "data", "bootstrap", "selection", "candidates")
SELECTION_KEYS = ("C", "d_k", "lambda", "nu_mag", "mode", "zero_policy")
BASIS_KEYS = ("d", "coordinate_order", "levels")
LEVEL_KEYS = ("index", "name", "dim")
TARGET_KEYS = ("granularity", "kind", "values", "values_file", "nu", "provenance")
DATA_KEYS = ("granularity", "kind", "values", "values_file", "mu", "centered", "provenance")
BOOTSTRAP_KEYS = ("target_replicates_file", "data_replicates_file", "unit")
CANDIDATE_KEYS = ("name", "granularity", "q", "g", "q_file")


class ProfileError(ValueError):
    """A profile file problem, already phrased as 'FILE: FIELD: problem'."""


@dataclass(frozen=True)
class Level:
    name: str
    dim: int


@dataclass(frozen=True)
class Candidate:
    """A grading to certify: grades q or multipliers g, per level (broadcast) or per coordinate."""

    name: str
    granularity: str  # "level" or "coordinate"
    q: np.ndarray | None
    g: np.ndarray | None


@dataclass(frozen=True)
class Selection:
    clip: float = 2.0
    d_k: float | None = 64.0
    lam: float | None = None
    nu_mag: float = 0.0
    mode: str = "clipped"
    zero_policy: str = "error"

    @property
    def log_lambda(self) -> float:
        return math.log(self.lam) if self.lam is not None else 1.0 / float(self.d_k)


@dataclass(frozen=True)
class Profiles:
    """Normalised profiles on the solve's coordinates: levels when granularity is level or
    geometric (exact by Cor 3 / Prop 11), embedding coordinates otherwise.

    ``alpha``/``tau`` are on the simplex (entries below the double range underflow to 0);
    ``log_alpha``/``log_tau`` are their exact logarithms (-inf only for true zeros of alpha).
    ``deleted`` marks alpha zeros under zero policy ``delete``."""

    source: str
    task: str | None
    granularity: str  # of the solve: "coordinate" or "level"
    alpha: np.ndarray
    tau: np.ndarray
    levels: list[Level]
    level_of: np.ndarray | None  # coordinate -> level index, for coordinate profiles with levels
    selection: Selection
    candidates: list[Candidate] = field(default_factory=list)
    bootstrap_alpha: np.ndarray | None = None
    bootstrap_tau: np.ndarray | None = None
    centered: bool | None = None
    notes: list[str] = field(default_factory=list)
    log_alpha: np.ndarray | None = None
    log_tau: np.ndarray | None = None
    deleted: np.ndarray | None = None


# --- helpers --------------------------------------------------------------------------------------
def _fail(src: str, where: str, problem: str) -> ProfileError:
    return ProfileError(f"{src}: {where}: {problem}")


def _show(value: Any) -> str:
    """A short rendering of a user value for a message (never more than 40 characters)."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**30:
        return f"an integer of {len(str(abs(value)))} digits"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _number(src: str, where: str, value: Any, *, positive: bool = False, minimum: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fail(src, where, f"must be a number, not {_show(value)}")
    try:
        x = float(value)
    except OverflowError:
        raise _fail(src, where, f"is out of the double range ({_show(value)})") from None
    if not math.isfinite(x):
        raise _fail(src, where, f"must be finite, not {_show(value)}")
    if positive and x <= 0:
        raise _fail(src, where, f"must be > 0, not {_show(value)}")
    if minimum is not None and x < minimum:
        raise _fail(src, where, f"must be >= {minimum:g}, not {_show(value)}")
    return x


def _integer(src: str, where: str, value: Any, *, minimum: int, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(src, where, f"must be an integer, not {_show(value)}")
    if not minimum <= value <= maximum:
        raise _fail(src, where, f"must be an integer in [{minimum}, {maximum:,}], not {_show(value)}")
    return value


def _string(src: str, where: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _fail(src, where, f"must be a string, not {_show(value)}")
    return value


def _object(src: str, where: str, value: Any, keys: tuple[str, ...]) -> dict:
    if not isinstance(value, dict):
        raise _fail(src, where, f"must be an object/table, not {_show(value)}")
    unknown = [k for k in value if k not in keys]
    if unknown:
        raise _fail(src, f"{where}.{unknown[0]}", f"unknown key; expected one of {', '.join(keys)}")
    return value


def _vector(src: str, where: str, values: Any) -> np.ndarray:
    if not isinstance(values, list) or not values:
        raise _fail(src, where, "must be a nonempty list of numbers")
    if len(values) > MAX_COORDINATES:
        raise _fail(src, where, f"has {len(values):,} entries; the limit is {MAX_COORDINATES:,}")
    return np.array([_number(src, f"{where}[{i}]", v) for i, v in enumerate(values)], dtype=float)


def _choice(src: str, where: str, value: Any, options: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in options:
        raise _fail(src, where, f"must be one of {', '.join(options)}, not {_show(value)}")
    return value


def _reference(src: str, where: str, value: Any, base: Path, allow_outside: bool) -> Path:
    """A file named in the profile: a relative path inside the profile's folder (unless allowed)."""
    name = _string(src, where, value)
    if not name or "\0" in name:
        raise _fail(src, where, "must be a file name")
    path = base / name
    if not allow_outside:
        try:
            inside = path.resolve().is_relative_to(base.resolve())
        except (OSError, RuntimeError):
            inside = False
        if Path(name).is_absolute() or not inside:
            raise _fail(src, where, "names a file outside the profile's folder; pass --allow-outside to permit it")
    if not path.is_file():
        raise _fail(src, where, f"file {name!r} not found")
    return path


def _read_text(src: str, where: str, path: Path, limit: int = MAX_TEXT_BYTES) -> str:
    try:
        size = path.stat().st_size
        if size > limit:
            raise _fail(src, where, f"the file has {size:,} bytes; the limit is {limit:,}")
        return path.read_text(encoding="utf-8-sig")  # a byte-order mark (spreadsheet exports) is dropped
    except UnicodeDecodeError:
        raise _fail(src, where, "the file is not UTF-8 text") from None
    except OSError as exc:
        raise _fail(src, where, f"cannot read the file ({exc.strerror or type(exc).__name__})") from None


def _csv_rows(src: str, where: str, text: str) -> list[list[str]]:
    """Nonblank CSV rows; malformed CSV is reported by line number only (content is never echoed)."""
    reader = csv.reader(io.StringIO(text))
    rows, fields = [], 0
    try:
        for row in reader:
            if row and any(c.strip() for c in row):
                rows.append(row)
                fields += len(row)
                if fields > MAX_CSV_FIELDS:
                    raise _fail(src, where, f"the file has more than {MAX_CSV_FIELDS:,} fields")
    except csv.Error:
        raise _fail(src, where, f"malformed CSV at line {reader.line_num} (a field too long or a stray quote)") from None
    return rows


def _read_npy(src: str, where: str, path: Path, ndim: tuple[int, ...]) -> np.ndarray:
    """A .npy array, its header checked before any data are read: real numbers, ``ndim`` in
    ``ndim``, at most MAX_NPY_ELEMENTS elements, and the file holding all of them."""
    try:
        with path.open("rb") as fh:
            version = np.lib.format.read_magic(fh)
            read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            shape, fortran, dtype = read_header(fh, max_header_size=10_000)
            offset = fh.tell()
    except (ValueError, OSError, SyntaxError, TypeError):
        raise _fail(src, where, "not a valid .npy file") from None
    if dtype.fields is not None or dtype.kind not in "iuf" or dtype.itemsize > 16:
        raise _fail(src, where, f"the .npy array must hold real numbers, not dtype {dtype.str!r}")
    if len(shape) not in ndim:
        raise _fail(src, where, f"the .npy array has {len(shape)} dimensions; it must have {' or '.join(map(str, ndim))}")
    count = math.prod(shape)
    if count > MAX_NPY_ELEMENTS:
        raise _fail(src, where, f"the .npy header declares {count:,} elements; the limit is {MAX_NPY_ELEMENTS:,}")
    if path.stat().st_size < offset + count * dtype.itemsize:
        raise _fail(src, where, "the .npy file is shorter than its header declares")
    try:
        arr = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError):
        raise _fail(src, where, "not a valid .npy file") from None
    with np.errstate(over="ignore"):
        arr = np.asarray(arr, dtype=float)
    if fortran and not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr)
    return arr


def _read_column_file(src: str, where: str, path: Path) -> np.ndarray:
    """A values file: a 1-D .npy array, or CSV/text with one number per row (an optional header
    row), in coordinate (or level) order. A second column is an error, not an index to guess at:
    reading one column of several once took an index column's numbers as the values."""
    if path.suffix == ".npy":
        arr = _read_npy(src, where, path, (1,))
        if not arr.size:
            raise _fail(src, where, "the file holds no numbers")
        return arr
    rows = _csv_rows(src, where, _read_text(src, where, path))
    values = []
    for i, row in enumerate(rows):
        if len(row) != 1:
            raise _fail(src, where, f"row {i + 1} has {len(row)} columns; a values file holds one number per row")
        try:
            values.append(float(row[0]))
        except ValueError:
            if i == 0:
                continue  # a header
            raise _fail(src, where, f"row {i + 1}: not a number") from None
    if not values:
        raise _fail(src, where, "the file holds no numbers")
    if len(values) > MAX_COORDINATES:
        raise _fail(src, where, f"has {len(values):,} rows; the limit is {MAX_COORDINATES:,}")
    return np.array(values, dtype=float)


# --- normalisation ----------------------------------------------------------------------------------
def _log_normalise(src: str, where: str, raw: np.ndarray, kind: str) -> np.ndarray:
    """ln of the normalised profile (-inf at zeros), computed without overflow or underflow."""
    if not np.all(np.isfinite(raw)):
        bad = int(np.flatnonzero(~np.isfinite(raw))[0])
        raise _fail(src, f"{where}[{bad}]", f"must be finite, not {raw[bad]}")
    if kind != "probe_weights" and np.any(raw < 0):
        bad = int(np.flatnonzero(raw < 0)[0])
        raise _fail(src, f"{where}[{bad}]", f"{kind} must be >= 0, not {raw[bad]}")
    if not np.any(raw != 0):
        raise _fail(src, where, "all values are zero")
    with np.errstate(divide="ignore"):
        logs = np.log(np.abs(raw)) * (2.0 if kind == "probe_weights" else 1.0)
    top = float(logs.max())
    total = top + math.log(float(np.sum(np.exp(logs - top))))
    if kind == "normalized" and abs(math.fsum(raw.tolist()) - 1) > 1e-9:
        raise _fail(src, where, f"kind 'normalized' must sum to 1 within 1e-9, sums to {math.fsum(raw.tolist())!r}")
    return logs - total


def _zero_policy(
    src: str, where: tuple[str, str], la: np.ndarray, lt: np.ndarray, sel: Selection
) -> tuple[np.ndarray, list[str]]:
    """Zeros are allowed only as the zero policy says (gllm.md §4.3 rule 2, E7); returns the
    deleted mask and notes. Nothing is removed: in every bounded mode a zero-alpha coordinate
    sits at g = 1, its tau mass in the sum, which is what deleting it from alpha means."""
    notes: list[str] = []
    zero_t = np.flatnonzero(np.isneginf(lt))
    if zero_t.size:
        raise _fail(src, f"{where[1]}[{int(zero_t[0])}]", "the data profile must be > 0 on every coordinate")
    zero_a = np.flatnonzero(np.isneginf(la))
    deleted = np.zeros(la.size, dtype=bool)
    if zero_a.size:
        if sel.zero_policy == "error":
            raise _fail(
                src,
                f"{where[0]}[{int(zero_a[0])}]",
                "is 0 (Def 2 needs alpha > 0); pass --zero-policy delete or keep_clipped (or set selection.zero_policy)",
            )
        if sel.zero_policy == "keep_clipped":
            if sel.mode == "unclipped":
                raise _fail(src, "selection.zero_policy", "'keep_clipped' needs a mode with a box (clipped or regularized)")
            notes.append(f"{zero_a.size} target zeros kept: those coordinates saturate at g = 1")
        else:
            deleted[zero_a] = True
            if sel.mode == "unclipped":
                notes.append(
                    f"{zero_a.size} coordinates with alpha = 0 deleted; tau is not renormalised (gllm.md E7): "
                    "Lambda* is an infimum, approached as g -> 0 there, not attained"
                )
            else:
                notes.append(
                    f"{zero_a.size} coordinates with alpha = 0 deleted from alpha; tau is not renormalised (gllm.md E7): "
                    "they sit at g = 1, where the optimum is attained"
                )
    return deleted, notes


# --- readers ------------------------------------------------------------------------------------------
def _selection(src: str, raw: Any, overrides: dict[str, Any]) -> Selection:
    """The selection block, then the command-line overrides (named as the user typed them)."""
    raw = {} if raw is None else _object(src, "selection", raw, SELECTION_KEYS)
    clip = _number(src, "selection.C", raw.get("C", 2.0), minimum=1.0)
    d_k, lam = raw.get("d_k"), raw.get("lambda")
    if d_k is not None and lam is not None:
        raise _fail(src, "selection.lambda", "give either d_k or lambda, not both")
    if d_k is not None:
        d_k = _number(src, "selection.d_k", d_k, positive=True)
        if not 1e-300 <= d_k <= 1e300:
            raise _fail(src, "selection.d_k", f"must lie in [1e-300, 1e300], not {d_k!r}")
    if lam is not None:
        lam = _number(src, "selection.lambda", lam)
        if lam <= 1:
            raise _fail(src, "selection.lambda", f"must be > 1, not {lam!r}")
    nu = _number(src, "selection.nu_mag", raw.get("nu_mag", 0.0), minimum=0.0)
    mode = _choice(src, "selection.mode", raw.get("mode", "clipped"), MODES)
    zero = _choice(src, "selection.zero_policy", raw.get("zero_policy", "error"), ZERO_POLICIES)
    for flag, value in overrides.items():
        if value is None:
            continue
        if flag in ("--C", "--d-k", "--nu-mag") and not math.isfinite(value):
            raise ProfileError(f"{flag} must be finite, not {value}")
        if flag == "--C":
            if value < 1:
                raise ProfileError(f"--C must be >= 1, not {value:g}")
            clip = value
        elif flag == "--d-k":
            if lam is not None:
                raise ProfileError(f"--d-k conflicts with selection.lambda in {src}; give one of them")
            if not 1e-300 <= value <= 1e300:
                raise ProfileError(f"--d-k must lie in [1e-300, 1e300], not {value:g}")
            d_k = value
        elif flag == "--nu-mag":
            if value < 0:
                raise ProfileError(f"--nu-mag must be >= 0, not {value:g}")
            nu = value
        elif flag == "--mode":
            mode = value
        elif flag == "--zero-policy":
            # argparse checks the flag; a library caller's typo would otherwise act as 'delete'
            if value not in ZERO_POLICIES:
                raise ProfileError(f"--zero-policy must be one of {', '.join(ZERO_POLICIES)}, not {_show(value)}")
            zero = value
    if d_k is None and lam is None:
        d_k = 64.0
    return Selection(clip=clip, d_k=d_k, lam=lam, nu_mag=nu, mode=mode, zero_policy=zero)


def _levels(src: str, basis: Any) -> tuple[list[Level], int | None]:
    """The level list and basis.d (None when not given)."""
    if basis is None:
        return [], None
    basis = _object(src, "basis", basis, BASIS_KEYS)
    raw = basis.get("levels", [])
    if not isinstance(raw, list):
        raise _fail(src, "basis.levels", "must be a list of {index, name, dim}")
    if "coordinate_order" in basis and basis["coordinate_order"] != "level-major":
        raise _fail(src, "basis.coordinate_order", f"must be 'level-major', not {_show(basis['coordinate_order'])}")
    levels, total = [], 0
    for i, lv in enumerate(raw):
        lv = _object(src, f"basis.levels[{i}]", lv, LEVEL_KEYS)
        if "index" in lv and _integer(src, f"basis.levels[{i}].index", lv["index"], minimum=0, maximum=MAX_COORDINATES) != i:
            raise _fail(src, f"basis.levels[{i}].index", f"must be {i} (levels are listed in order)")
        dim = _integer(src, f"basis.levels[{i}].dim", lv.get("dim", 1), minimum=1, maximum=MAX_COORDINATES)
        total += dim
        if total > MAX_COORDINATES:
            raise _fail(src, "basis.levels", f"the level dims add up to more than {MAX_COORDINATES:,} coordinates")
        levels.append(Level(_string(src, f"basis.levels[{i}].name", lv.get("name", f"level{i}")), dim))
    d = None
    if "d" in basis:
        d = _integer(src, "basis.d", basis["d"], minimum=1, maximum=MAX_COORDINATES)
        if levels and total != d:
            raise _fail(src, "basis.d", f"is {d} but the level dims sum to {total}")
    return levels, d


def _profile(
    src: str, name: str, raw: Any, base: Path, levels: list[Level], d: int | None, allow_outside: bool
) -> tuple[str, np.ndarray, dict]:
    """(granularity, ln of the normalised values, extras) for the 'target' or 'data' section;
    ``d`` is basis.d, which sets the coordinate count when there is no level list."""
    if raw is None:
        raise _fail(src, name, "missing (an object with granularity and values)")
    raw = _object(src, name, raw, TARGET_KEYS if name == "target" else DATA_KEYS)
    gran = _choice(src, f"{name}.granularity", raw.get("granularity"), GRANULARITIES)
    extras: dict[str, Any] = {}
    if name == "data":
        centered = raw.get("centered")
        if centered is not None and not isinstance(centered, bool):
            raise _fail(src, "data.centered", f"must be true or false, not {_show(centered)}")
        extras["centered"] = centered
    key = "nu" if name == "target" else "mu"
    if gran == "geometric":
        extra = [k for k in ("kind", "values", "values_file") if k in raw]
        if extra:
            raise _fail(src, f"{name}.{extra[0]}", f"a geometric profile takes only {key}")
        value = _number(src, f"{name}.{key}", raw.get(key))
        if not 0 < value < 1:
            raise _fail(src, f"{name}.{key}", f"must lie in (0, 1), not {value!r}")
        if not levels:
            raise _fail(src, "basis.levels", "geometric profiles need the level list")
        n = len(levels)
        k = np.arange(n, dtype=float)
        logs = (n - 1 - k) * math.log(value) if name == "target" else k * math.log(value)
        top = float(logs.max())
        return "level", logs - (top + math.log(float(np.sum(np.exp(logs - top))))), {**extras, key: value}
    if key in raw:
        raise _fail(src, f"{name}.{key}", f"{key} goes with granularity 'geometric'")
    kinds = TARGET_KINDS if name == "target" else DATA_KINDS
    kind = _choice(src, f"{name}.kind", raw.get("kind"), kinds)
    if "values" in raw and "values_file" in raw:
        raise _fail(src, name, "give either values or values_file, not both")
    if "values" in raw:
        where = f"{name}.values"
        values = _vector(src, where, raw["values"])
    elif "values_file" in raw:
        where = f"{name}.values_file"
        values = _read_column_file(src, where, _reference(src, where, raw["values_file"], base, allow_outside))
    else:
        raise _fail(src, f"{name}.values", "missing (give values or values_file)")
    if gran == "level" and not levels:
        raise _fail(src, "basis.levels", "level profiles need the level list")
    if gran == "level":
        expected, by = len(levels), "level granularity"
    elif levels:
        expected, by = sum(lv.dim for lv in levels), "coordinate granularity, the level dims"
    else:
        expected, by = values.size if d is None else d, "coordinate granularity, basis.d"
    if values.size != expected:
        raise _fail(src, where, f"has length {values.size}, expected {expected} ({by})")
    return gran, _log_normalise(src, where, values, kind), extras


def _candidates(src: str, raw: Any, base: Path, n_coord: int, n_level: int, gran: str, allow_outside: bool) -> list[Candidate]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise _fail(src, "candidates", f"must be a list, not {_show(raw)}")
    out = []
    for i, c in enumerate(raw):
        where = f"candidates[{i}]"
        c = _object(src, where, c, CANDIDATE_KEYS)
        name = _string(src, f"{where}.name", c.get("name"))
        cg = _choice(src, f"{where}.granularity", c.get("granularity", "level"), ("level", "coordinate"))
        given = [k for k in ("q", "g", "q_file") if k in c]
        if len(given) != 1:
            raise _fail(src, where, "give exactly one of q, g or q_file")
        if cg == "coordinate" and gran == "level":
            raise _fail(src, f"{where}.granularity", "a coordinate candidate needs coordinate profiles")
        field_name = f"{where}.{given[0]}"
        if given[0] == "q_file":
            vec = _read_column_file(src, field_name, _reference(src, field_name, c["q_file"], base, allow_outside))
            if not np.all(np.isfinite(vec)):
                raise _fail(src, field_name, "grades must be finite")
        else:
            vec = _vector(src, field_name, c[given[0]])
        if given[0] == "g" and np.any(vec <= 0):
            raise _fail(src, field_name, "multipliers must be > 0")
        length = n_level if cg == "level" else n_coord
        if vec.size != length:
            raise _fail(src, field_name, f"has length {vec.size}, expected {length} ({cg} granularity)")
        q, g = (None, vec) if given[0] == "g" else (vec, None)
        out.append(Candidate(name, cg, q, g))
    return out


def _bootstrap(src: str, raw: Any, base: Path, n: int, allow_outside: bool) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Replicates (B x n) of raw profiles (kind: energies), normalised row by row, scale-safely."""
    if raw is None:
        return None, None
    raw = _object(src, "bootstrap", raw, BOOTSTRAP_KEYS)
    if "unit" in raw:  # a label (gllm.md §4.3: "treebank sentence"), checked like the other strings
        _string(src, "bootstrap.unit", raw["unit"])
    arrays = []
    for key in ("target_replicates_file", "data_replicates_file"):
        where = f"bootstrap.{key}"
        if key not in raw:
            raise _fail(src, where, "missing")
        path = _reference(src, where, raw[key], base, allow_outside)
        if path.suffix == ".npy":
            arr = _read_npy(src, where, path, (1, 2))
        else:
            rows = _csv_rows(src, where, _read_text(src, where, path))
            for i, row in enumerate(rows):
                if len(row) != len(rows[0]):
                    raise _fail(src, where, f"row {i + 1} has {len(row)} columns, row 1 has {len(rows[0])}")
            try:
                arr = np.array([[float(c) for c in row] for row in rows], dtype=float)
            except ValueError:
                raise _fail(src, where, "every field must be a number") from None
        arr = np.atleast_2d(arr)
        if arr.shape[0] == 0 or arr.size == 0:
            raise _fail(src, where, "the file holds no replicates")
        if arr.shape[1] != n:
            raise _fail(src, where, f"replicates have {arr.shape[1]} columns, expected {n}")
        if not np.all(np.isfinite(arr)) or np.any(arr < 0):
            raise _fail(src, where, "replicates must be finite and >= 0")
        top = arr.max(axis=1, keepdims=True)
        if np.any(top <= 0):
            raise _fail(src, where, f"replicate {int(np.flatnonzero(top[:, 0] <= 0)[0])} is all zero")
        scaled = arr / top
        arrays.append(scaled / scaled.sum(axis=1, keepdims=True))
    if arrays[0].shape[0] != arrays[1].shape[0]:
        raise _fail(src, "bootstrap", "target and data files have different numbers of replicates")
    return arrays[0], arrays[1]


def _build(
    src: str,
    task: str | None,
    gran: str,
    la: np.ndarray,
    lt: np.ndarray,
    levels: list[Level],
    level_of: np.ndarray | None,
    sel: Selection,
    where: tuple[str, str],
    *,
    candidates: list[Candidate] | None = None,
    boot: tuple[np.ndarray | None, np.ndarray | None] = (None, None),
    centered: bool | None = None,
    notes: list[str] | None = None,
) -> Profiles:
    deleted, zero_notes = _zero_policy(src, where, la, lt, sel)
    return Profiles(
        src,
        task,
        gran,
        np.exp(la),
        np.exp(lt),
        levels,
        level_of,
        sel,
        candidates or [],
        boot[0],
        boot[1],
        centered,
        (notes or []) + zero_notes,
        log_alpha=la,
        log_tau=lt,
        deleted=deleted,
    )


def _from_document(src: str, doc: Any, base: Path, overrides: dict[str, Any], allow_outside: bool) -> Profiles:
    if not isinstance(doc, dict):
        raise _fail(src, "(top level)", f"must be an object/table, not {_show(doc)}")
    unknown = [k for k in doc if k not in TOP_KEYS]
    if unknown:
        raise _fail(src, str(unknown[0]), f"unknown field; expected one of {', '.join(TOP_KEYS)}")
    if doc.get("format", "gllm-profiles") != "gllm-profiles":
        raise _fail(src, "format", f"must be 'gllm-profiles', not {_show(doc.get('format'))}")
    version = doc.get("version", 1)
    if isinstance(version, bool) or version != 1:
        raise _fail(src, "version", f"version {_show(version)} is not supported (1 is)")
    task = doc.get("task")
    if task is not None:
        _string(src, "task", task)
    sel = _selection(src, doc.get("selection"), overrides)
    levels, d = _levels(src, doc.get("basis"))
    g_t, la, _ = _profile(src, "target", doc.get("target"), base, levels, d, allow_outside)
    g_d, lt, extras = _profile(src, "data", doc.get("data"), base, levels, d, allow_outside)
    if g_t != g_d:
        raise _fail(src, "data.granularity", f"the target is per {g_t} but the data per {g_d}; give both alike")
    if la.size != lt.size:
        raise _fail(src, "data.values", f"has length {lt.size}, the target {la.size}")
    notes = []
    if extras.get("centered") is None and g_d == "coordinate":
        notes.append("data.centered not given: Def 2 uses uncentred second moments (gllm.md E8)")
    level_of = None
    if g_t == "coordinate" and levels:
        level_of = np.repeat(np.arange(len(levels)), [lv.dim for lv in levels])
    n_coord = la.size
    cands = _candidates(src, doc.get("candidates"), base, n_coord, len(levels) if levels else n_coord, g_t, allow_outside)
    if any(c.granularity == "level" for c in cands) and g_t == "coordinate" and not levels:
        raise _fail(src, "candidates", "level candidates need basis.levels for coordinate profiles")
    boot = _bootstrap(src, doc.get("bootstrap"), base, n_coord, allow_outside)
    where = ("target.values", "data.values")
    return _build(
        src,
        task,
        g_t,
        la,
        lt,
        levels,
        level_of,
        sel,
        where,
        candidates=cands,
        boot=boot,
        centered=extras.get("centered"),
        notes=notes,
    )


def _from_csv(src: str, path: Path, sel: Selection) -> Profiles:
    rows = _csv_rows(src, "(file)", _read_text(src, "(file)", path))
    if len(rows) < 2:
        raise _fail(src, "(header)", "needs a header row and at least one data row")
    header = [h.strip() for h in rows[0]]
    layouts = {
        ("j", "level", "alpha", "tau"): ("coordinate", "energies", "variances"),
        ("j", "level", "w_hat", "sigma2_hat"): ("coordinate", "probe_weights", "second_moments"),
        ("level", "name", "dim", "a", "s"): ("level", "energies", "variances"),
    }
    match = [k for k in layouts if set(k) <= set(header)]
    if not match:
        raise _fail(src, "(header)", "expected columns j,level,alpha,tau or j,level,w_hat,sigma2_hat or level,name,dim,a,s")
    # an ambiguous header is an error rather than resolved by a rule the user cannot see
    if len(match) > 1:
        raise _fail(src, "(header)", f"holds both {','.join(match[0])} and {','.join(match[1])}; keep one set of columns")
    cols = match[0]
    repeated = next((name for name in cols if header.count(name) > 1), None)
    if repeated is not None:
        raise _fail(src, "(header)", f"column {repeated} appears {header.count(repeated)} times")
    gran, kind_t, kind_d = layouts[cols]
    body = rows[1:]
    if len(body) > MAX_COORDINATES:
        raise _fail(src, "(file)", f"has {len(body):,} rows; the limit is {MAX_COORDINATES:,}")
    index = {name: header.index(name) for name in cols}
    for i, row in enumerate(body):
        if len(row) != len(header):
            raise _fail(src, f"row {i + 2}", f"has {len(row)} fields, the header {len(header)}")

    def column(name: str) -> np.ndarray:
        out = []
        for i, row in enumerate(body):
            try:
                out.append(float(row[index[name]]))
            except ValueError:
                raise _fail(src, f"row {i + 2}, column {name}", "not a number") from None
        arr = np.array(out)
        if not np.all(np.isfinite(arr)):
            raise _fail(src, f"row {int(np.flatnonzero(~np.isfinite(arr))[0]) + 2}, column {name}", "must be finite")
        return arr

    def integers(name: str, low: int, high: int) -> np.ndarray:
        arr = column(name)
        bad = np.flatnonzero((arr != np.round(arr)) | (arr < low) | (arr > high))
        if bad.size:
            raise _fail(src, f"row {int(bad[0]) + 2}, column {name}", f"must be an integer in [{low}, {high:,}]")
        return arr.astype(np.int64)

    if gran == "level":
        level_col = integers("level", 0, len(body) - 1)
        if np.any(level_col != np.arange(len(body))):
            raise _fail(
                src,
                f"row {int(np.flatnonzero(level_col != np.arange(len(body)))[0]) + 2}, column level",
                "levels must be 0, 1, 2, ... in order",
            )
        dims = integers("dim", 1, MAX_COORDINATES)
        if int(dims.sum()) > MAX_COORDINATES:
            raise _fail(src, "column dim", f"the dims add up to more than {MAX_COORDINATES:,} coordinates")
        levels = [Level(row[index["name"]], int(d)) for row, d in zip(body, dims, strict=True)]
        raw_a, raw_t = column("a"), column("s")
        level_of = None
    else:
        # rows may come in any order, each coordinate j = 0, ..., d - 1 once: the output and the
        # per-coordinate candidates are indexed by j, not by row
        j_col = integers("j", 0, len(body) - 1)
        first_row = np.full(len(body), -1)
        for i, j in enumerate(j_col):
            if first_row[j] >= 0:
                raise _fail(src, f"row {i + 2}, column j", f"coordinate {j} is also row {first_row[j] + 2}")
            first_row[j] = i
        order = np.argsort(j_col)
        level_col = integers("level", 0, len(body) - 1)[order]
        n_levels = int(level_col.max()) + 1
        counts = np.bincount(level_col, minlength=n_levels)
        if np.any(counts == 0):
            raise _fail(src, "column level", f"level {int(np.flatnonzero(counts == 0)[0])} has no coordinates")
        levels = [Level(f"level{k}", int(counts[k])) for k in range(n_levels)]
        raw_a, raw_t = column(cols[2])[order], column(cols[3])[order]
        level_of = level_col
    # CSV values are normalised by sum (tolerant of rounding) rather than required to sum to 1
    la = _log_normalise(src, f"column {cols[-2]}", raw_a, kind_t)
    lt = _log_normalise(src, f"column {cols[-1]}", raw_t, kind_d)
    return _build(src, None, gran, la, lt, levels, level_of, sel, (f"column {cols[-2]}", f"column {cols[-1]}"))


class _Missing:
    """Marks a document that could not be parsed (distinct from a JSON null document)."""


class _Repeated(dict):
    """A JSON object that gave ``key`` more than once: json keeps the last silently, so a second
    "target" block or {"C": 4, "C": 1} would replace the first without a word."""

    key: str


def _json_object(pairs: list[tuple[str, Any]], repeats: list[_Repeated]) -> dict:
    """The object_pairs_hook of profile JSON: a plain dict, or a _Repeated one noted in ``repeats``."""
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    seen: set[str] = set()
    repeated = _Repeated(obj)
    for key, _ in pairs:
        if key in seen:
            repeated.key = key
            break
        seen.add(key)
    repeats.append(repeated)
    return repeated


def _repeated_key(doc: Any) -> str | None:
    """The field path (as in error messages) of the first repeated key, in document order; the
    walk is run only when the parser saw one, so long value lists cost nothing otherwise."""
    stack: list[tuple[str, Any]] = [("", doc)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, _Repeated):
            return f"{where}.{value.key}" if where else value.key
        if isinstance(value, dict):
            children = [(f"{where}.{k}" if where else k, v) for k, v in value.items()]
        elif isinstance(value, list):
            children = [(f"{where}[{i}]", v) for i, v in enumerate(value)]
        else:
            continue
        stack.extend(c for c in reversed(children) if isinstance(c[1], dict | list))
    return None


def parse_document(src: str, path: Path) -> Any:
    """The JSON or TOML document of ``path``; syntax errors, too-deep nesting and out-of-range
    numbers are ProfileErrors."""
    suffix = path.suffix.lower()
    text = _read_text(src, "(file)", path, MAX_DOCUMENT_BYTES)
    doc: Any = _Missing
    repeats: list[_Repeated] = []
    try:
        if suffix == ".json":
            doc = json.loads(text, object_pairs_hook=lambda pairs: _json_object(pairs, repeats))
        elif suffix == ".toml":
            doc = tomllib.loads(text)
    except json.JSONDecodeError as exc:
        raise ProfileError(f"{src}: (syntax): {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except tomllib.TOMLDecodeError:
        raise ProfileError(f"{src}: (syntax): not valid TOML") from None
    except RecursionError:
        raise ProfileError(f"{src}: (syntax): the document is nested too deeply") from None
    except ValueError:  # e.g. an integer of more than 4,300 digits
        raise ProfileError(f"{src}: (syntax): a number is too long") from None
    if doc is _Missing:
        raise ProfileError(f"{src}: unknown file type {suffix!r}; use .json, .toml or .csv")
    repeated = _repeated_key(doc) if repeats else None
    if repeated is not None:
        raise _fail(src, repeated, "the key is given more than once; give it once")
    return doc


def load_profiles(path: str | Path, *, overrides: dict[str, Any] | None = None, allow_outside: bool = False) -> Profiles:
    """Read and validate a profile file.

    ``overrides`` are selection options from the command line, keyed by their flags (``--C``,
    ``--mode``, ``--d-k``, ``--nu-mag``, ``--zero-policy``); the bare names ``C``, ``mode``,
    ``d_k``, ``nu_mag``, ``zero_policy`` are accepted too. ``allow_outside`` lets file references
    leave the profile's folder."""
    path = Path(path)
    src = str(path)
    if not path.exists():
        raise ProfileError(f"{src}: file not found")
    if not path.is_file():
        raise ProfileError(f"{src}: not a regular file")
    flags = {"C": "--C", "mode": "--mode", "d_k": "--d-k", "nu_mag": "--nu-mag", "zero_policy": "--zero-policy"}
    over = {flags.get(k, k): v for k, v in (overrides or {}).items() if v is not None}
    if path.suffix.lower() == ".csv":
        return _from_csv(src, path, _selection(src, None, over))
    return _from_document(src, parse_document(src, path), path.parent, over, allow_outside)
