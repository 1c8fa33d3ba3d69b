"""GLLM profile files (gllm.md §4.3): JSON (canonical), TOML, or CSV.

Every problem is reported as ProfileError("FILE: FIELD: problem"), which the CLI prints in one
line with exit code 2. Profiles are normalised to the simplex before anything is certified.
"""

from __future__ import annotations

import csv
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
    geometric (exact by Cor 3 / Prop 11), embedding coordinates otherwise."""

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


# --- helpers --------------------------------------------------------------------------------------
def _fail(src: str, where: str, problem: str) -> ProfileError:
    return ProfileError(f"{src}: {where}: {problem}")


def _number(src: str, where: str, value: Any, *, positive: bool = False, minimum: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fail(src, where, f"must be a number, not {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise _fail(src, where, f"must be finite, not {value!r}")
    if positive and x <= 0:
        raise _fail(src, where, f"must be > 0, not {value!r}")
    if minimum is not None and x < minimum:
        raise _fail(src, where, f"must be >= {minimum}, not {value!r}")
    return x


def _vector(src: str, where: str, values: Any) -> np.ndarray:
    if not isinstance(values, list) or not values:
        raise _fail(src, where, "must be a nonempty list of numbers")
    return np.array([_number(src, f"{where}[{i}]", v) for i, v in enumerate(values)], dtype=float)


def _choice(src: str, where: str, value: Any, options: tuple[str, ...]) -> str:
    if value not in options:
        raise _fail(src, where, f"must be one of {', '.join(options)}, not {value!r}")
    return value


def _read_column_file(src: str, where: str, path: Path) -> np.ndarray:
    """A values file: .npy, or CSV/text with one number per row (an optional header row)."""
    if not path.is_file():
        raise _fail(src, where, f"file {path} not found")
    if path.suffix == ".npy":
        try:
            arr = np.load(path, allow_pickle=False)
        except ValueError as exc:
            raise _fail(src, where, f"cannot read {path}: {exc}") from None
        return np.asarray(arr, dtype=float)
    rows = [r for r in csv.reader(path.read_text(encoding="utf-8").splitlines()) if r and any(c.strip() for c in r)]
    values = []
    for i, row in enumerate(rows):
        try:
            values.append([float(c) for c in row])
        except ValueError:
            if i == 0:
                continue  # a header
            raise _fail(src, where, f"{path} row {i + 1}: not a number: {row}") from None
    arr = np.array(values, dtype=float)
    return arr[:, -1] if arr.ndim == 2 and arr.shape[1] >= 1 else arr


# --- normalisation ----------------------------------------------------------------------------------
def _normalise(src: str, where: str, raw: np.ndarray, kind: str) -> np.ndarray:
    if not np.all(np.isfinite(raw)):
        bad = int(np.flatnonzero(~np.isfinite(raw))[0])
        raise _fail(src, f"{where}[{bad}]", f"must be finite, not {raw[bad]}")
    if kind == "probe_weights":
        energy = raw**2
    else:
        if np.any(raw < 0):
            bad = int(np.flatnonzero(raw < 0)[0])
            raise _fail(src, f"{where}[{bad}]", f"{kind} must be >= 0, not {raw[bad]}")
        energy = raw
    total = energy.sum()
    if total <= 0:
        raise _fail(src, where, "all values are zero")
    if kind == "normalized" and abs(total - 1) > 1e-9:
        raise _fail(src, where, f"kind 'normalized' must sum to 1 within 1e-9, sums to {float(total)!r}")
    return energy / total


def _apply_zero_policy(src: str, alpha: np.ndarray, tau: np.ndarray, sel: Selection) -> tuple[np.ndarray, list[str]]:
    """Zeros are allowed only as the zero policy says; returns the coordinates to keep and notes."""
    notes: list[str] = []
    zero_t = np.flatnonzero(tau == 0)
    if zero_t.size:
        raise _fail(src, f"data values[{int(zero_t[0])}]", "the data profile must be > 0 on every coordinate")
    zero_a = np.flatnonzero(alpha == 0)
    keep = np.ones(alpha.size, dtype=bool)
    if zero_a.size:
        if sel.zero_policy == "error":
            raise _fail(
                src,
                f"target values[{int(zero_a[0])}]",
                "is 0 (Def 2 needs alpha > 0); set selection.zero_policy to 'delete' or 'keep_clipped'",
            )
        if sel.zero_policy == "keep_clipped":
            if sel.mode not in ("clipped", "regularized_clipped"):
                raise _fail(src, "selection.zero_policy", "'keep_clipped' needs a clipped mode")
            notes.append(f"{zero_a.size} target zeros kept: those coordinates saturate at g = 1")
        else:
            keep[zero_a] = False
            notes.append(f"{zero_a.size} coordinates with alpha = 0 deleted; tau is not renormalised (gllm.md E7)")
    return keep, notes


# --- readers ------------------------------------------------------------------------------------------
def _selection(src: str, raw: Any) -> Selection:
    if raw is None:
        return Selection()
    if not isinstance(raw, dict):
        raise _fail(src, "selection", "must be a table/object")
    known = {"C", "d_k", "lambda", "nu_mag", "mode", "zero_policy"}
    unknown = set(raw) - known
    if unknown:
        raise _fail(src, f"selection.{sorted(unknown)[0]}", f"unknown option; expected one of {', '.join(sorted(known))}")
    clip = _number(src, "selection.C", raw.get("C", 2.0), minimum=1.0)
    d_k = raw.get("d_k")
    lam = raw.get("lambda")
    if d_k is not None:
        d_k = _number(src, "selection.d_k", d_k, positive=True)
    if lam is not None:
        lam = _number(src, "selection.lambda", lam)
        if lam <= 1:
            raise _fail(src, "selection.lambda", f"must be > 1, not {lam}")
    if d_k is None and lam is None:
        d_k = 64.0
    nu = _number(src, "selection.nu_mag", raw.get("nu_mag", 0.0), minimum=0.0)
    mode = _choice(src, "selection.mode", raw.get("mode", "clipped"), MODES)
    zero = _choice(src, "selection.zero_policy", raw.get("zero_policy", "error"), ZERO_POLICIES)
    return Selection(clip=clip, d_k=d_k, lam=lam, nu_mag=nu, mode=mode, zero_policy=zero)


def _levels(src: str, basis: Any) -> list[Level]:
    if basis is None:
        return []
    if not isinstance(basis, dict) or not isinstance(basis.get("levels", []), list):
        raise _fail(src, "basis.levels", "must be a list of {index, name, dim}")
    levels = []
    for i, lv in enumerate(basis.get("levels", [])):
        if not isinstance(lv, dict):
            raise _fail(src, f"basis.levels[{i}]", "must be an object with name and dim")
        if lv.get("index", i) != i:
            raise _fail(src, f"basis.levels[{i}].index", f"must be {i} (levels are listed in order)")
        dim = lv.get("dim", 1)
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
            raise _fail(src, f"basis.levels[{i}].dim", f"must be an integer >= 1, not {dim!r}")
        levels.append(Level(str(lv.get("name", f"level{i}")), dim))
    if "d" in basis and levels and sum(lv.dim for lv in levels) != basis["d"]:
        raise _fail(src, "basis.d", f"is {basis['d']} but the level dims sum to {sum(lv.dim for lv in levels)}")
    return levels


def _profile(src: str, name: str, raw: Any, base: Path, levels: list[Level]) -> tuple[str, np.ndarray, dict]:
    """(granularity, normalised values, extras) for the 'target' or 'data' section."""
    if not isinstance(raw, dict):
        raise _fail(src, name, "missing (an object with granularity and values)")
    gran = _choice(src, f"{name}.granularity", raw.get("granularity"), GRANULARITIES)
    extras = {"centered": raw.get("centered")} if name == "data" else {}
    if gran == "geometric":
        key = "nu" if name == "target" else "mu"
        value = _number(src, f"{name}.{key}", raw.get(key))
        if not 0 < value < 1:
            raise _fail(src, f"{name}.{key}", f"must lie in (0, 1), not {value}")
        if not levels:
            raise _fail(src, "basis.levels", "geometric profiles need the level list")
        n = len(levels)
        powers = np.array([value ** (n - 1 - k) if name == "target" else value**k for k in range(n)])
        return "level", powers / powers.sum(), {**extras, key: value}
    kinds = TARGET_KINDS if name == "target" else DATA_KINDS
    kind = _choice(src, f"{name}.kind", raw.get("kind"), kinds)
    if "values" in raw and "values_file" in raw:
        raise _fail(src, name, "give either values or values_file, not both")
    if "values" in raw:
        values = _vector(src, f"{name}.values", raw["values"])
    elif "values_file" in raw:
        values = _read_column_file(src, f"{name}.values_file", base / str(raw["values_file"]))
    else:
        raise _fail(src, f"{name}.values", "missing (give values or values_file)")
    expected = len(levels) if gran == "level" else (sum(lv.dim for lv in levels) if levels else values.size)
    if values.size != expected:
        raise _fail(src, f"{name}.values", f"has length {values.size}, expected {expected} ({gran} granularity)")
    return gran, _normalise(src, f"{name}.values", values, kind), extras


def _candidates(src: str, raw: Any, base: Path, n_coord: int, n_level: int, gran: str) -> list[Candidate]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise _fail(src, "candidates", "must be a list")
    out = []
    for i, c in enumerate(raw):
        where = f"candidates[{i}]"
        if not isinstance(c, dict) or "name" not in c:
            raise _fail(src, where, "must be an object with a name")
        cg = _choice(src, f"{where}.granularity", c.get("granularity", "level"), ("level", "coordinate"))
        given = [k for k in ("q", "g", "q_file") if k in c]
        if len(given) != 1:
            raise _fail(src, where, "give exactly one of q, g or q_file")
        vec = (
            _read_column_file(src, f"{where}.q_file", base / str(c["q_file"]))
            if given[0] == "q_file"
            else _vector(src, f"{where}.{given[0]}", c[given[0]])
        )
        if given[0] == "g" and np.any(vec <= 0):
            raise _fail(src, f"{where}.g", "multipliers must be > 0")
        if cg == "coordinate" and gran == "level":
            raise _fail(src, f"{where}.granularity", "a coordinate candidate needs coordinate profiles")
        length = n_level if cg == "level" else n_coord
        if vec.size != length:
            raise _fail(src, f"{where}.{given[0]}", f"has length {vec.size}, expected {length} ({cg} granularity)")
        q, g = (None, vec) if given[0] == "g" else (vec, None)
        out.append(Candidate(str(c["name"]), cg, q, g))
    return out


def _bootstrap(src: str, raw: Any, base: Path, n: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Replicates (B x n) of raw profiles, normalised row by row (kind: already energies)."""
    if raw is None:
        return None, None
    if not isinstance(raw, dict):
        raise _fail(src, "bootstrap", "must be an object with target_replicates_file and data_replicates_file")
    arrays = []
    for key in ("target_replicates_file", "data_replicates_file"):
        if key not in raw:
            raise _fail(src, f"bootstrap.{key}", "missing")
        path = base / str(raw[key])
        if not path.is_file():
            raise _fail(src, f"bootstrap.{key}", f"file {path} not found")
        try:
            arr = np.load(path, allow_pickle=False) if path.suffix == ".npy" else np.loadtxt(path, delimiter=",", ndmin=2)
        except ValueError as exc:
            raise _fail(src, f"bootstrap.{key}", f"cannot read {path}: {exc}") from None
        arr = np.atleast_2d(np.asarray(arr, dtype=float))
        if arr.shape[1] != n:
            raise _fail(src, f"bootstrap.{key}", f"replicates have {arr.shape[1]} columns, expected {n}")
        if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr.sum(axis=1) <= 0):
            raise _fail(src, f"bootstrap.{key}", "replicates must be finite, >= 0 and not all zero")
        arrays.append(arr / arr.sum(axis=1, keepdims=True))
    if arrays[0].shape[0] != arrays[1].shape[0]:
        raise _fail(src, "bootstrap", "target and data files have different numbers of replicates")
    return arrays[0], arrays[1]


def _from_document(src: str, doc: Any, base: Path) -> Profiles:
    if not isinstance(doc, dict):
        raise _fail(src, "(top level)", "must be an object")
    if doc.get("format", "gllm-profiles") != "gllm-profiles":
        raise _fail(src, "format", f"must be 'gllm-profiles', not {doc.get('format')!r}")
    if doc.get("version", 1) != 1:
        raise _fail(src, "version", f"version {doc.get('version')!r} is not supported (1 is)")
    known = {"format", "version", "task", "basis", "target", "data", "bootstrap", "selection", "candidates"}
    unknown = set(doc) - known
    if unknown:
        raise _fail(src, sorted(unknown)[0], f"unknown field; expected one of {', '.join(sorted(known))}")
    sel = _selection(src, doc.get("selection"))
    levels = _levels(src, doc.get("basis"))
    g_t, alpha, _ = _profile(src, "target", doc.get("target"), base, levels)
    g_d, tau, extras = _profile(src, "data", doc.get("data"), base, levels)
    if g_t != g_d:
        raise _fail(src, "data.granularity", f"the target is per {g_t} but the data per {g_d}; give both alike")
    notes = []
    if extras.get("centered") is None and g_d == "coordinate":
        notes.append("data.centered not given: Def 2 uses uncentred second moments (gllm.md E8)")
    keep, zero_notes = _apply_zero_policy(src, alpha, tau, sel)
    notes += zero_notes
    level_of = None
    if g_t == "coordinate" and levels:
        level_of = np.repeat(np.arange(len(levels)), [lv.dim for lv in levels])
    n_coord = alpha.size
    cands = _candidates(src, doc.get("candidates"), base, n_coord, len(levels) if levels else n_coord, g_t)
    boot_a, boot_t = _bootstrap(src, doc.get("bootstrap"), base, n_coord)
    if not keep.all():
        alpha, tau = alpha[keep], tau[keep]
        level_of = None if level_of is None else level_of[keep]
        cands = [
            Candidate(
                c.name,
                c.granularity,
                *(None if v is None else (v[keep] if c.granularity == "coordinate" else v) for v in (c.q, c.g)),
            )
            for c in cands
        ]
        boot_a = None if boot_a is None else boot_a[:, keep]
        boot_t = None if boot_t is None else boot_t[:, keep]
    return Profiles(
        src,
        doc.get("task"),
        g_t,
        alpha,
        tau,
        levels,
        level_of,
        sel,
        cands,
        boot_a,
        boot_t,
        extras.get("centered"),
        notes,
    )


def _from_csv(src: str, path: Path, sel: Selection) -> Profiles:
    rows = list(csv.DictReader(path.read_text(encoding="utf-8").splitlines()))
    if not rows:
        raise _fail(src, "(header)", "empty CSV")
    header = set(rows[0])
    layouts = {
        ("j", "level", "alpha", "tau"): ("coordinate", "normalized", "normalized"),
        ("j", "level", "w_hat", "sigma2_hat"): ("coordinate", "probe_weights", "second_moments"),
        ("level", "name", "dim", "a", "s"): ("level", "normalized", "normalized"),
    }
    match = [k for k in layouts if set(k) <= header]
    if not match:
        raise _fail(src, "(header)", "expected columns j,level,alpha,tau or j,level,w_hat,sigma2_hat or level,name,dim,a,s")
    cols = match[0]
    gran, kind_t, kind_d = layouts[cols]

    def column(name: str) -> np.ndarray:
        out = []
        for i, row in enumerate(rows):
            try:
                out.append(float(row[name]))
            except (TypeError, ValueError):
                raise _fail(src, f"row {i + 2}, column {name}", f"not a number: {row[name]!r}") from None
        return np.array(out)

    if gran == "level":
        names = [row["name"] for row in rows]
        dims = column("dim")
        if np.any(dims < 1) or np.any(dims != np.round(dims)):
            raise _fail(src, "column dim", "dims must be integers >= 1")
        levels = [Level(n, int(d)) for n, d in zip(names, dims, strict=True)]
        raw_a, raw_t = column("a"), column("s")
    else:
        level_col = column("level")
        if np.any(level_col != np.round(level_col)) or np.any(level_col < 0):
            raise _fail(src, "column level", "levels must be integers >= 0")
        n_levels = int(level_col.max()) + 1
        levels = [Level(f"level{k}", int(np.sum(level_col == k))) for k in range(n_levels)]
        raw_a, raw_t = column(cols[2]), column(cols[3])
    # CSV values are normalised by sum (tolerant of rounding) rather than required to sum to 1
    kinds = ("energies" if kind_t == "normalized" else kind_t, "variances" if kind_d == "normalized" else kind_d)
    alpha = _normalise(src, f"column {cols[-2]}", raw_a, kinds[0])
    tau = _normalise(src, f"column {cols[-1]}", raw_t, kinds[1])
    keep, notes = _apply_zero_policy(src, alpha, tau, sel)
    level_of = None if gran == "level" else np.asarray(level_col, dtype=int)
    if not keep.all():
        alpha, tau = alpha[keep], tau[keep]
        level_of = None if level_of is None else level_of[keep]
    return Profiles(src, None, gran, alpha, tau, levels, level_of, sel, [], None, None, None, notes)


def load_profiles(path: str | Path, *, overrides: dict[str, Any] | None = None) -> Profiles:
    """Read and validate a profile file; ``overrides`` are selection options from the command line."""
    path = Path(path)
    src = str(path)
    if not path.is_file():
        raise ProfileError(f"{src}: file not found")
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return _from_csv(src, path, _selection(src, {k: v for k, v in (overrides or {}).items() if v is not None}))
    try:
        text = path.read_text(encoding="utf-8")
        doc = json.loads(text) if suffix == ".json" else tomllib.loads(text) if suffix == ".toml" else None
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ProfileError(f"{src}: (syntax): {exc}") from None
    except UnicodeDecodeError:
        raise ProfileError(f"{src}: (encoding): not UTF-8 text") from None
    if doc is None:
        raise ProfileError(f"{src}: unknown file type {suffix!r}; use .json, .toml or .csv")
    if overrides:
        doc = dict(doc)
        doc["selection"] = {**(doc.get("selection") or {}), **{k: v for k, v in overrides.items() if v is not None}}
    return _from_document(src, doc, path.parent)
