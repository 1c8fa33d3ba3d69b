"""A fresh, seeded fuzz set over all five commands (issue 12), run as real subprocesses.

Every input runs as ``attncert ...`` in a fresh temporary folder (its cwd) and is classified:

- ``ok``: exit 0 and, for valid inputs, a correct answer (checked independently: the grade optimum
  against Lambda recomputed at the reported grading and a separate minimisation, BC^2 in the
  unclipped mode, scale and permutation invariance; phase gamma_c finite, in the grid, reproducible);
- ``refused``: exit 2, exactly one line on stderr, no traceback, nothing written;
- ``traceback``, ``hang`` (over 10 s without progress output), ``memory`` (over 2 GB peak RSS, or a
  MemoryError), ``wrong`` (exit 0 with a wrong answer), ``valid-rejected``, ``invalid-accepted``
  (exit 0 on an input that must be refused), ``dirty-refusal`` (exit 2 but several lines or a file
  written), ``other``.

    python benchmarks/fuzz_fresh.py [--only CMD] [-k NAME] [--json FAILURES.json] [--workers 2]
                                    [--attncert PROGRAM]  # another build, e.g. an older commit

Exit status 1 when any input lands in a failure class.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import numpy as np
from scipy.optimize import minimize

ROOT = Path(__file__).resolve().parents[1]
ATTNCERT = [str(ROOT / ".venv" / "bin" / "attncert")]  # the program under test (--attncert)
PROFILES = ROOT / "certificates" / "examples" / "profiles"
SEED = 20261201
HANG_S = 10.0
HARD_S = 40.0
MEMORY_KB = 2 * 1024 * 1024
AS_LIMIT = 6 * 1024**3  # a safety net for the shared machine; a run reaching it fails as 'memory'
OK_CLASSES = {"ok", "refused"}

Files = dict[str, bytes | None]  # relative path -> content (None: a folder, FIFO: a named pipe)
FIFO = b"\0fifo"


@dataclass
class Run:
    rc: int | None
    stdout: str
    stderr: str
    elapsed: float
    cpu: float
    maxrss_kb: int
    cwd: Path


@dataclass
class Case:
    command: str
    name: str
    argv: list[str]
    expect: str  # "ok", "refuse" or "either"
    files: Files = field(default_factory=dict)
    check: Callable[[Run], str | None] | None = None  # for valid inputs: None when correct, else why
    watch: tuple[str, ...] = ()  # absolute paths outside the temporary folder that must not appear


# --------------------------------------------------------------------------------------------
# running and classifying


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))


def execute(argv: list[str], cwd: Path) -> Run:
    """Run ``attncert argv`` in ``cwd``; its own peak RSS comes from wait4 (not the pool's maximum)."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "COLUMNS": "200", "NO_COLOR": "1"}
    start = time.perf_counter()
    proc = subprocess.Popen(
        [*ATTNCERT, *argv],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env=env,
        preexec_fn=_limit,
    )
    chunks: dict[str, bytes] = {}

    def drain(name: str, stream: IO[bytes]) -> None:
        chunks[name] = stream.read()

    readers = [threading.Thread(target=drain, args=(n, s)) for n, s in (("out", proc.stdout), ("err", proc.stderr))]
    for t in readers:
        t.start()
    rc: int | None = None
    rss, cpu = 0, 0.0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            rc, rss, cpu = os.waitstatus_to_exitcode(status), usage.ru_maxrss, usage.ru_utime + usage.ru_stime
            proc.returncode = rc
            break
        if time.perf_counter() - start > HARD_S:
            proc.kill()
            _, _, usage = os.wait4(proc.pid, 0)
            proc.returncode, rss, cpu = -9, usage.ru_maxrss, usage.ru_utime + usage.ru_stime
            break
        time.sleep(0.02)
    for t in readers:
        t.join()
    elapsed = time.perf_counter() - start
    out, err = chunks.get("out", b""), chunks.get("err", b"")
    return Run(rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), elapsed, cpu, rss, cwd)


def _listing(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def _materialise(folder: Path, files: Files) -> None:
    for rel, content in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if content is None:
            path.mkdir(exist_ok=True)
        elif content == FIFO:
            os.mkfifo(path)
        else:
            path.write_bytes(content)


def classify(case: Case) -> tuple[str, str]:
    with tempfile.TemporaryDirectory(prefix="fuzz_fresh.") as tmp:
        cwd = Path(tmp)
        _materialise(cwd, case.files)
        before = _listing(cwd)
        watched_before = {w for w in case.watch if os.path.lexists(w)}
        run = execute(case.argv, cwd)
        written = sorted((_listing(cwd) - before) | ({w for w in case.watch if os.path.lexists(w)} - watched_before))
        detail = (
            f"rc={run.rc} {run.elapsed:.1f}s cpu={run.cpu:.1f}s mem={run.maxrss_kb // 1024}MB err={run.stderr.strip()[-300:]!r}"
        )
        if run.maxrss_kb > MEMORY_KB or "MemoryError" in run.stderr or "Cannot allocate memory" in run.stderr:
            return "memory", detail
        if run.rc is None:
            return "hang", detail
        # wall time alone misleads on a shared, loaded machine: a run over 10 s of CPU without
        # progress output, or one killed at HARD_S (blocked or looping), is a hang
        if run.cpu > HANG_S and not run.stderr.strip():
            return "hang", detail
        if "Traceback (most recent call last)" in run.stderr:
            return "traceback", detail
        if run.rc == 2:
            lines = run.stderr.strip("\n").split("\n")
            if case.expect == "ok":
                return "valid-rejected", detail
            if len(lines) != 1 or not lines[0].startswith("attncert: error:"):
                return "dirty-refusal", detail + f" lines={len(lines)}"
            if written:
                return "dirty-refusal", detail + f" written={written[:5]}"
            return "refused", detail
        if run.rc == 0:
            if case.expect == "refuse":
                return "invalid-accepted", detail + f" stdout={run.stdout.strip()[-200:]!r}"
            if case.check is not None:
                why = case.check(run)
                if why is not None:
                    return "wrong", detail + f" why={why}"
            return "ok", detail
        return "other", detail


# --------------------------------------------------------------------------------------------
# independent checks


def lam(alpha: np.ndarray, tau: np.ndarray, g: np.ndarray) -> float:
    """Lambda(g) = (sum alpha g^-2)(sum tau g^2) (gllm.md Prop 7), alpha and tau normalised here."""
    a, t = alpha / alpha.sum(), tau / tau.sum()
    return float(np.dot(a, g**-2.0) * np.dot(t, g**2.0))


def box_minimum(alpha: np.ndarray, tau: np.ndarray, clip: float) -> float:
    """min Lambda over gradings with max/min <= C: log g in [0, log C]^L, L-BFGS-B from several starts."""
    a, t = alpha / alpha.sum(), tau / tau.sum()

    def f(x: np.ndarray) -> float:
        return float(np.log(np.dot(a, np.exp(-2 * x))) + np.log(np.dot(t, np.exp(2 * x))))

    rng = np.random.default_rng(0)
    best = math.inf
    for _ in range(6):
        x0 = rng.uniform(0, math.log(clip), size=len(a))
        res = minimize(f, x0, method="L-BFGS-B", bounds=[(0, math.log(clip))] * len(a), options={"ftol": 1e-15, "gtol": 1e-12})
        best = min(best, math.exp(res.fun))
    return best


def _report(run: Run, name: str = "g.json") -> dict:
    return json.loads((run.cwd / name).read_text())


def grades_check(alpha: np.ndarray, tau: np.ndarray, clip: float | None) -> Callable[[Run], str | None]:
    """The reported optimum is attained at the reported grading, lies in the box, and matches an
    independent minimisation (clip None: unclipped, Lambda* = BC^2)."""

    def check(run: Run) -> str | None:
        try:
            rep = _report(run)
        except (OSError, ValueError) as exc:
            return f"no JSON report: {exc}"
        g = np.asarray(rep["g_star_c"], dtype=float)
        value = rep["lambda_star_c"]
        if not (np.all(np.isfinite(g)) and np.all(g > 0)):
            return f"grading not finite/positive: {g}"
        at_g = lam(alpha, tau, g)
        if not math.isclose(at_g, value, rel_tol=1e-7):
            return f"Lambda at reported g = {at_g} != reported {value}"
        bc2 = float(np.sum(np.sqrt(alpha / alpha.sum() * tau / tau.sum()))) ** 2
        if clip is None:
            if not math.isclose(value, bc2, rel_tol=1e-7):
                return f"unclipped {value} != BC^2 {bc2}"
            return None
        if g.max() / g.min() > clip * (1 + 1e-9):
            return f"grading outside the box: ratio {g.max() / g.min()} > C = {clip}"
        mine = box_minimum(alpha, tau, clip)
        if value > mine * (1 + 1e-6) or value < bc2 * (1 - 1e-9):
            return f"optimum {value} vs independent {mine} (BC^2 {bc2})"
        return None

    return check


def phase_check(gamma_max: float, repeat: list[str] | None = None) -> Callable[[Run], str | None]:
    """Every gamma_c is finite and inside the grid; with ``repeat``, a second identical run agrees."""

    def check(run: Run) -> str | None:
        try:
            summary = json.loads((run.cwd / "out" / "summary.json").read_text())
        except (OSError, ValueError) as exc:
            return f"no summary.json: {exc}"
        means = [p["gamma_c_mean"] for p in summary["points"]]
        if not means or any(not isinstance(m, float) or not 0 < m <= gamma_max for m in means):
            return f"gamma_c outside (0, {gamma_max}]: {means}"
        if repeat is not None:
            again = execute(repeat, run.cwd)
            if again.rc != 0:
                return f"repeat failed rc={again.rc}"
            other = json.loads((run.cwd / "out2" / "summary.json").read_text())
            if [p["gamma_c_mean"] for p in other["points"]] != means:
                return "same seed, different gamma_c"
        return None

    return check


def contains(*needles: str) -> Callable[[Run], str | None]:
    def check(run: Run) -> str | None:
        missing = [n for n in needles if n not in run.stdout]
        return f"stdout lacks {missing}" if missing else None

    return check


def file_check(rel: str, test: Callable[[bytes], bool], what: str) -> Callable[[Run], str | None]:
    def check(run: Run) -> str | None:
        path = run.cwd / rel
        if not path.is_file():
            return f"{rel} not written"
        return None if test(path.read_bytes()) else f"{rel}: {what}"

    return check


# --------------------------------------------------------------------------------------------
# building blocks of inputs

WEIRD_NAMES = ["[/]", "[bold]x", ":emoji:", ":thumbs_up:", "a\nb", "tab\there", "", " ", "-", "ünï", "x" * 300]
BAD_FLOATS = ["nan", "NaN", "inf", "-inf", "1e400", "-1e400", "0", "-1", "1e308", "abc", "", "0x10", "5e-324"]
BAD_INTS = ["0", "-1", "-99999999999999999999", "1e3", "2.5", "nan", "", "abc", str(10**400), "99999999999999"]


def dumps(doc: object) -> bytes:
    return json.dumps(doc, allow_nan=True).encode()


def deep(n: int, leaf: str = "1") -> bytes:
    return ("[" * n + leaf + "]" * n).encode()


def npy_header(shape: tuple[int, ...], descr: str = "<f8") -> bytes:
    """An .npy v1.0 header (and no data) declaring ``shape``."""
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape!r}, }}"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode("latin1")


def npy(array: np.ndarray) -> bytes:
    import io

    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()


def level_csv(a: list[float], s: list[float], dims: list[int] | None = None, names: list[str] | None = None) -> bytes:
    rows = ["level,name,dim,a,s"]
    for i, (x, y) in enumerate(zip(a, s, strict=True)):
        name = names[i] if names else f"lvl{i}"
        rows.append(f"{i},{name},{dims[i] if dims else 1},{x!r},{y!r}")
    return ("\n".join(rows) + "\n").encode()


def level_profile(
    a: list[float], s: list[float], *, clip: float = 2.0, mode: str = "clipped", names: list[str] | None = None, **extra: object
) -> dict:
    n = len(a)
    return {
        "format": "gllm-profiles",
        "version": 1,
        "task": "fuzz",
        "basis": {"d": n, "levels": [{"index": i, "name": names[i] if names else f"l{i}", "dim": 1} for i in range(n)]},
        "target": {"granularity": "level", "kind": "energies", "values": a},
        "data": {"granularity": "level", "kind": "variances", "values": s},
        "selection": {"C": clip, "d_k": 64, "nu_mag": 0.0, "mode": mode, "zero_policy": "error"},
        **extra,
    }


def example(name: str) -> dict:
    return json.loads((PROFILES / name).read_text())


def mutate(doc: dict, path: tuple, value: object) -> dict:
    """A deep copy of ``doc`` with ``doc[path] = value`` (a value of ``DELETE`` removes the key)."""
    out = json.loads(json.dumps(doc))
    node = out
    for key in path[:-1]:
        node = node[key]
    if value is DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


DELETE = object()


# --------------------------------------------------------------------------------------------
# the cases, per command


def verify_cases(rng: random.Random) -> list[Case]:
    cases: list[Case] = []
    tiny = ["-k", "iswiglu", "--jobs", "1"]

    def add(name: str, argv: list[str], expect: str = "refuse", **kw: object) -> None:
        cases.append(Case("verify", name, ["verify", *argv], expect, **kw))

    add("valid tiny", tiny, "ok", check=contains("PROVED"))
    add(
        "valid tiny json",
        [*tiny, "--json", "r.json"],
        "ok",
        check=file_check("r.json", lambda b: json.loads(b)["schema"].startswith("attncert.verify-report"), "not a report"),
    )
    add(
        "valid tiny markdown",
        [*tiny, "--markdown", "r.md"],
        "ok",
        check=file_check("r.md", lambda b: b"iswiglu" in b, "lacks the id"),
    )
    add(
        "valid json name with newline",
        [*tiny, "--json", "a\nb.json"],
        "ok",
        check=file_check("a\nb.json", lambda b: b.startswith(b"{"), "not JSON"),
    )
    add(
        "valid json name with markup",
        [*tiny, "--json", "[bold]x[red].json"],
        "ok",
        check=file_check("[bold]x[red].json", lambda b: b.startswith(b"{"), "not JSON"),
    )
    add("valid negative controls", [*tiny, "--negative-controls"], "ok", check=contains("killed: 1/1"))
    add("valid jobs 2", ["-k", "iswiglu", "--jobs", "2"], "ok", check=contains("PROVED"))
    add("valid backend auto", [*tiny, "--backend", "auto"], "ok")
    add("valid seed 0", [*tiny, "--seed", "0"], "ok")
    add("valid glob", ["-k", "plga.iswiglu*", "--jobs", "1"], "ok", check=contains("PROVED"))
    add("valid paper+k", ["--paper", "plga", *tiny], "ok")
    add("valid timeout inf-ish large", [*tiny, "--timeout", "1e9"], "ok")
    for paper in ("plga", "gllm", "psa"):
        add(f"list {paper}", ["--paper", paper, "--list"], "ok", check=contains(f"{paper}."))
    add("list full tier", ["--tier", "full", "--list"], "ok")
    add("list empty pattern", ["-k", "", "--list"], "either")
    add("unknown option", ["--bogus"])
    add("unknown option value", [*tiny, "--frobnicate=3"])
    add("positional", ["extra"])
    add("paper unknown", ["--paper", "xyz"])
    add("paper empty", ["--paper", ""])
    add("paper uppercase", ["--paper", "PLGA"])
    add("tier unknown", ["--tier", "medium", *tiny])
    add("backend unknown", ["--backend", "jax", *tiny])
    add("backend torch missing", ["--backend", "torch", *tiny], "either")
    add("backend cupy missing", ["--backend", "cupy", *tiny], "either")
    for v in BAD_INTS:
        add(f"jobs {v!r}", ["-k", "iswiglu", "--jobs", v])
    for v in ["nan", "inf", "-inf", "0", "-5", "abc", "", "1e400", "-0"]:
        add(f"timeout {v!r}", [*tiny, "--timeout", v], "refuse")
    for v in ["nan", "1e3", "abc", "", "2.5"]:
        add(f"seed {v!r}", [*tiny, "--seed", v])
    for v in ["-1", "-99999999999999999999999"]:
        add(f"seed negative {v}", ["-k", "bernstein_quantile", "--jobs", "1", "--seed", v])
    add("seed huge", ["-k", "bernstein_quantile", "--jobs", "1", "--seed", str(10**400)], "either")
    for w in WEIRD_NAMES:
        flag = "-k" if len(w) % 2 else "--tag"
        add(f"{flag} no match {w!r}", [flag, f"zz{w}zz", "--jobs", "1"])
    for opt in ("--json", "--markdown"):
        add(f"{opt} under a file", [*tiny, opt, "f/out"], files={"f": b"x"})
        add(f"{opt} into /proc", [*tiny, opt, "/proc/fuzz_fresh_out"], watch=("/proc/fuzz_fresh_out",))
        add(f"{opt} /proc/self/status", [*tiny, opt, "/proc/self/status"])
        add(f"{opt} a folder", [*tiny, opt, "d"], files={"d": None})
        add(f"{opt} missing folder", [*tiny, opt, "nope/x/out"])
        add(f"{opt} empty", [*tiny, opt, ""])
        add(f"{opt} a FIFO", [*tiny, opt, "fifo"], files={"fifo": FIFO})
        add(f"{opt} trailing slash", [*tiny, opt, "newdir/"])
    add("json under a file, no match", ["-k", "zzz", "--json", "f/out"], files={"f": b"x"})
    add("json and markdown both bad", [*tiny, "--json", "d", "--markdown", "f/x"], files={"d": None, "f": b""})
    del rng
    return cases


def _run_docs(base: dict) -> list[tuple[str, bytes]]:
    """Malformed saved verify reports, mutations of a real one (a label ending ': valid' is not)."""
    r0 = base["results"][0]
    docs: list[tuple[str, bytes]] = [
        ("empty", b""),
        ("spaces", b"   \n"),
        ("binary", bytes(range(256))),
        ("invalid utf-8", b'{"schema": "\xff\xfe"}'),
        ("utf-16", json.dumps(base).encode("utf-16")),
        ("list", b"[]"),
        ("null", b"null"),
        ("number", b"42"),
        ("true", b"true"),
        ("string", b'"attncert.verify-report/2"'),
        ("truncated", json.dumps(base).encode()[:200]),
        ("deep list", deep(100_000)),
        ("deep in results", b'{"schema": "attncert.verify-report/2", "results": ' + deep(50_000) + b"}"),
        ("NaN literal", b'{"schema": NaN}'),
        ("wrong schema", dumps({**base, "schema": "attncert.verify-report/1"})),
        ("schema int", dumps({**base, "schema": 2})),
        ("schema markup", dumps({**base, "schema": "[/]:emoji:"})),
        ("schema huge int", b'{"schema": ' + b"9" * 5000 + b"}"),
        ("no results", dumps({k: v for k, v in base.items() if k != "results"})),
        ("results null", dumps({**base, "results": None})),
        ("results dict", dumps({**base, "results": {"a": 1}})),
        ("results string", dumps({**base, "results": "abc"})),
        ("results of ints", dumps({**base, "results": [1, 2]})),
        ("results of lists", dumps({**base, "results": [[r0]]})),
    ]
    for key in ("id", "verdict", "scope", "paper", "as_expected", "evidence", "claim", "expected"):
        docs.append((f"result without {key}", dumps({**base, "results": [{k: v for k, v in r0.items() if k != key}]})))
    for key, value in [
        ("verdict", "MAYBE"),
        ("verdict", 3),
        ("verdict", None),
        ("verdict", "[/]"),
        ("scope", "everywhere"),
        ("scope", 1),
        ("scope", ["general"]),
        ("id", 17),
        ("id", ["a"]),
        ("id", None),
        ("paper", "xyz"),
        ("paper", 5),
        ("as_expected", "yes"),
        ("expected", "SURE"),
        ("evidence", "none"),
        ("evidence", None),
        ("claim", "Prop 1"),
        ("negative_control", "x"),
        ("negative_control", {"killed": "x"}),
        ("negative_control", {}),
    ]:
        docs.append((f"result {key}={value!r}", dumps({**base, "results": [{**r0, key: value}]})))
    docs.append(
        ("unknown id (a certificate since removed): valid", dumps({**base, "results": [{**r0, "id": "no.such.certificate"}]}))
    )
    docs.append(("unknown id with markup: valid", dumps({**base, "results": [{**r0, "id": "[/]:x:"}]})))
    docs.append(("duplicate ids", dumps({**base, "results": [r0, r0]})))
    docs.append(("summary wrong type", dumps({**base, "summary": "ok"})))
    docs.append(("environment null", dumps({**base, "environment": None})))
    docs.append(("selection null", dumps({**base, "selection": None})))
    docs.append(("out_of_scope wrong", dumps({**base, "out_of_scope": "x"})))
    docs.append(("out_of_scope items", dumps({**base, "out_of_scope": [1]})))
    return docs


def claims_cases(rng: random.Random, base: dict, base_bytes: bytes) -> list[Case]:
    cases: list[Case] = []

    def add(name: str, argv: list[str], expect: str = "refuse", **kw: object) -> None:
        cases.append(Case("claims", name, ["claims", *argv], expect, **kw))

    add("valid all", [], "ok", check=contains("claims:"))
    for paper in ("plga", "gllm", "psa"):
        add(f"valid {paper}", ["--paper", paper], "ok", check=contains("claims:"))
    add(
        "valid json",
        ["--paper", "gllm", "--json", "c.json"],
        "ok",
        check=file_check("c.json", lambda b: "claims" in json.loads(b), "no claims"),
    )
    add("valid from", ["--from", "run.json"], "ok", files={"run.json": base_bytes}, check=contains("proved in general"))
    add(
        "valid from + json",
        ["--from", "run.json", "--json", "c.json"],
        "ok",
        files={"run.json": base_bytes},
        check=file_check("c.json", lambda b: b.startswith(b"{"), "not JSON"),
    )
    add("valid from, other paper", ["--from", "run.json", "--paper", "psa"], "ok", files={"run.json": base_bytes})
    add("valid from, name with markup", ["--from", "[/]r.json"], "ok", files={"[/]r.json": base_bytes})
    add("from and run", ["--from", "run.json", "--run"], files={"run.json": base_bytes})
    add("paper unknown", ["--paper", "nope"])
    add("unknown option", ["--tier", "quick"])
    add("run jobs 0", ["--run", "--jobs", "0"])
    add("run timeout nan", ["--run", "--timeout", "nan"])
    add("run timeout -1", ["--run", "--timeout", "-1"])
    add("from missing", ["--from", "missing.json"])
    add("from folder", ["--from", "d"], files={"d": None})
    add("from /proc/self/status", ["--from", "/proc/self/status"])
    add("from /dev/null", ["--from", "/dev/null"])
    add("from a FIFO", ["--from", "fifo"], files={"fifo": FIFO})
    add("from under a file", ["--from", "f/run.json"], files={"f": b"x"})
    add("from empty name", ["--from", ""])
    for w in WEIRD_NAMES[:6]:
        add(f"from missing weird {w!r}", ["--from", f"{w}.json"])
    for i, (label, doc) in enumerate(_run_docs(base)):
        expect = "ok" if label.endswith(": valid") else "refuse"
        if i % 2:
            add(f"from {label}", ["--from", "run.json"], expect, files={"run.json": doc})
        else:
            add(f"from {label} + json", ["--from", "run.json", "--json", "c.json"], expect, files={"run.json": doc})
    for target, files, watch in [
        ("f/c.json", {"f": b"x"}, ()),
        ("/proc/fuzz_fresh_claims", {}, ("/proc/fuzz_fresh_claims",)),
        ("d", {"d": None}, ()),
        ("nope/c.json", {}, ()),
        ("", {}, ()),
        ("fifo", {"fifo": FIFO}, ()),
    ]:
        add(f"json target {target!r}", ["--json", target], files=files, watch=watch)
    del rng
    return cases


def report_cases(rng: random.Random, base: dict, base_bytes: bytes) -> list[Case]:
    cases: list[Case] = []
    src = {"run.json": base_bytes}

    def add(name: str, argv: list[str], expect: str = "refuse", files: Files | None = None, **kw: object) -> None:
        cases.append(Case("report", name, ["report", *argv], expect, files=src if files is None else files, **kw))

    page_ok = file_check("out/index.html", lambda b: b"iswiglu" in b and b"</html>" in b.lower(), "page lacks the certificate")
    add("valid from", ["--from", "run.json", "--out", "out", "--no-figures"], "ok", check=page_ok)
    add(
        "valid from, nested out",
        ["--from", "run.json", "--out", "out/a/b", "--no-figures"],
        "ok",
        check=file_check("out/a/b/index.html", lambda b: b"iswiglu" in b, "page lacks the certificate"),
    )
    add(
        "valid from, paper filter", ["--from", "run.json", "--out", "out", "--no-figures", "--paper", "plga"], "ok", check=page_ok
    )
    add("valid from, paper filter to none", ["--from", "run.json", "--out", "out", "--no-figures", "--paper", "psa"], "ok")
    add(
        "valid from, out exists empty",
        ["--from", "run.json", "--out", "out", "--no-figures"],
        "ok",
        files={**src, "out": None},
        check=page_ok,
    )
    add(
        "valid from, out with newline",
        ["--from", "run.json", "--out", "o\nut", "--no-figures"],
        "ok",
        check=file_check("o\nut/index.html", lambda b: b"iswiglu" in b, "page"),
    )
    add(
        "valid from, out with markup",
        ["--from", "run.json", "--out", "[/]:emoji:", "--no-figures"],
        "ok",
        check=file_check("[/]:emoji:/index.html", lambda b: b"iswiglu" in b, "page"),
    )
    add("no --out", ["--from", "run.json", "--no-figures"])
    add("out empty", ["--from", "run.json", "--out", "", "--no-figures"])
    add("out is a file", ["--from", "run.json", "--out", "f", "--no-figures"], files={**src, "f": b"x"})
    add("out under a file", ["--from", "run.json", "--out", "f/out", "--no-figures"], files={**src, "f": b"x"})
    add(
        "out in /proc",
        ["--from", "run.json", "--out", "/proc/fuzz_fresh_report", "--no-figures"],
        watch=("/proc/fuzz_fresh_report",),
    )
    add("out /proc/self", ["--from", "run.json", "--out", "/proc/self", "--no-figures"])
    add(
        "out index.html is a folder",
        ["--from", "run.json", "--out", "out", "--no-figures"],
        files={**src, "out/index.html": None},
    )
    add("out /dev/null", ["--from", "run.json", "--out", "/dev/null", "--no-figures"])
    for opt in (
        ["--tier", "full"],
        ["--tier", "quick"],
        ["--seed", "0"],
        ["--seed", "5"],
        ["--jobs", "1"],
        ["--negative-controls"],
    ):
        add(f"from with {' '.join(opt)}", ["--from", "run.json", "--out", "out", "--no-figures", *opt])
    add("timeout with from", ["--from", "run.json", "--out", "out", "--no-figures", "--timeout", "5"], "either")
    add("tier unknown", ["--out", "out", "--tier", "max", "--no-figures"])
    add("paper unknown", ["--out", "out", "--paper", "x", "--no-figures"])
    add("jobs 0", ["--out", "out", "--jobs", "0", "--no-figures"])
    add("jobs nan", ["--out", "out", "--jobs", "nan", "--no-figures"])
    add("timeout nan", ["--out", "out", "--timeout", "nan", "--no-figures"])
    add("timeout inf", ["--from", "run.json", "--out", "out", "--timeout", "inf", "--no-figures"], "either")
    add("seed nan", ["--out", "out", "--seed", "nan", "--no-figures"])
    add("seed negative", ["--out", "out", "--seed", "-3", "--no-figures", "--paper", "plga", "--jobs", "1"])
    add("unknown option", ["--out", "out", "--k", "x"])
    add("from missing", ["--from", "missing.json", "--out", "out", "--no-figures"])
    add("from folder", ["--from", "d", "--out", "out", "--no-figures"], files={"d": None})
    add("from a FIFO", ["--from", "fifo", "--out", "out", "--no-figures"], files={"fifo": FIFO})
    add("from /proc/self/status", ["--from", "/proc/self/status", "--out", "out", "--no-figures"])
    add("from under a file", ["--from", "f/r.json", "--out", "out", "--no-figures"], files={"f": b""})
    for w in WEIRD_NAMES[:6]:
        add(f"from missing weird {w!r}", ["--from", f"{w}.json", "--out", "out", "--no-figures"])
    for label, doc in _run_docs(base):
        expect = "ok" if label.endswith(": valid") else "refuse"
        add(f"from {label}", ["--from", "run.json", "--out", "out", "--no-figures"], expect, files={"run.json": doc})
    del rng
    return cases


def _valid_level_profiles(rng: random.Random, n: int) -> list[tuple[str, list[float], list[float], float]]:
    out = []
    for i in range(n):
        levels = rng.randint(2, 8)
        a = [rng.uniform(0.01, 1.0) for _ in range(levels)]
        s = [rng.uniform(0.01, 1.0) for _ in range(levels)]
        out.append((f"random {i} (L={levels})", a, s, rng.choice([1.25, 1.5, 2.0, 4.0, 10.0])))
    return out


def grades_cases(rng: random.Random) -> list[Case]:
    cases: list[Case] = []

    def add(name: str, argv: list[str], expect: str = "refuse", **kw: object) -> None:
        cases.append(Case("grades", name, ["grades", *argv], expect, **kw))

    def prof(
        name: str,
        doc: dict | bytes,
        expect: str = "refuse",
        ext: str = "json",
        extra: list[str] | None = None,
        files: Files | None = None,
        **kw: object,
    ) -> None:
        content = doc if isinstance(doc, bytes) else dumps(doc)
        add(name, [f"p.{ext}", *(extra or [])], expect, files={f"p.{ext}": content, **(files or {})}, **kw)

    # valid inputs, checked independently
    for label, a, s, clip in _valid_level_profiles(rng, 14):
        A, S = np.array(a), np.array(s)
        prof(
            f"valid {label} C={clip}",
            level_profile(a, s, clip=clip),
            "ok",
            extra=["--json", "g.json"],
            check=grades_check(A, S, clip),
        )
        k = rng.choice([1e-170, 1e-30, 1e30, 1e200])
        prof(
            f"valid {label} scaled {k:g}",
            level_profile([x * k for x in a], [y / k if k > 1 else y for y in s], clip=clip),
            "ok",
            extra=["--json", "g.json"],
            check=grades_check(A, S, clip),
        )
    for label, a, s, clip in _valid_level_profiles(rng, 5):
        A, S = np.array(a), np.array(s)
        prof(
            f"valid csv {label}",
            level_csv(a, s),
            "ok",
            ext="csv",
            extra=["--C", str(clip), "--json", "g.json"],
            check=grades_check(A, S, clip),
        )
        prof(
            f"valid unclipped {label}",
            level_profile(a, s, mode="unclipped"),
            "ok",
            extra=["--json", "g.json"],
            check=grades_check(A, S, None),
        )
        perm = list(range(len(a)))
        rng.shuffle(perm)
        prof(
            f"valid permuted {label}",
            level_profile([a[i] for i in perm], [s[i] for i in perm], clip=clip),
            "ok",
            extra=["--json", "g.json"],
            check=grades_check(A[perm], S[perm], clip),
        )
    a, s = [0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]
    A, S = np.array(a), np.array(s)
    prof(
        "valid names with markup",
        level_profile(a, s, names=["[/]", ":emoji:", "[bold]x", "a\\nb"]),
        "ok",
        extra=["--json", "g.json"],
        check=grades_check(A, S, 2.0),
    )
    prof(
        "valid task with markup",
        {**level_profile(a, s), "task": "[/][red]:smile:"},
        "ok",
        extra=["--json", "g.json"],
        check=grades_check(A, S, 2.0),
    )
    prof(
        "valid cross-check", level_profile(a, s), "ok", extra=["--json", "g.json", "--cross-check"], check=grades_check(A, S, 2.0)
    )
    prof(
        "valid subnormal entries",
        level_profile([5e-324, 1e-323, 2e-323, 3e-323], [1e-323, 1e-323, 5e-324, 5e-324]),
        "ok",
        extra=["--json", "g.json"],
        check=grades_check(np.array([1.0, 2, 4, 6]), np.array([2.0, 2, 1, 1]), 2.0),
    )
    prof(
        "valid energies 1e308",
        level_profile([1e308, 2e307, 3e307, 4e307], s),
        "ok",
        extra=["--json", "g.json"],
        check=grades_check(np.array([10.0, 2, 3, 4]), S, 2.0),
    )
    geo = [0.9**i for i in range(1000)]
    prof(
        "valid 1000 geometric levels",
        level_profile(geo, geo[::-1], clip=3.0),
        "ok",
        extra=["--json", "g.json"],
        check=grades_check(np.array(geo), np.array(geo[::-1]), 3.0),
    )
    prof(
        "valid C override on CLI",
        level_profile(a, s),
        "ok",
        extra=["--C", "3", "--json", "g.json"],
        check=grades_check(A, S, 3.0),
    )
    prof(
        "valid candidate huge q",
        {**level_profile(a, s), "candidates": [{"name": "big", "q": [0, 0, 0, 1e5]}]},
        "ok",
        extra=["--json", "g.json"],
        check=grades_check(A, S, 2.0),
    )
    prof(
        "valid candidate subnormal g",
        {**level_profile(a, s), "candidates": [{"name": "tiny", "g": [5e-324, 1e-323, 1e-323, 1e-323]}]},
        "either",
        extra=["--json", "g.json"],
    )
    for name in (
        "table3_nu06_mu03.json",
        "table3_nu06_mu03.toml",
        "levels_06_03.csv",
        "coord1024.json",
        "coord1024.csv",
        "table3_nu08_mu04.json",
    ):
        add(f"valid example {name}", [str(PROFILES / name)], "ok", check=contains("Lambda"))
    add("valid table3", ["--table3"], "ok")
    add("valid list examples", ["--list-examples"], "ok", check=contains("table3_nu06_mu03.json"))
    add("valid --example", ["--example", "table3_nu06_mu03.json"], "ok")

    # malformed documents
    base = level_profile(a, s)
    for label, raw in [
        ("list doc", b"[1, 2]"),
        ("number doc", b"3"),
        ("true doc", b"true"),
        ("null doc", b"null"),
        ("string doc", b'"x"'),
        ("empty", b""),
        ("syntax", b"{"),
        ("binary", bytes(range(256)) * 4),
        ("deep", deep(10_000)),
        ("deep object", b'{"a":' * 10_000 + b"1" + b"}" * 10_000),
        ("huge int C", dumps(base).replace(b'"C": 2.0', b'"C": ' + b"9" * 400)),
        ("NaN C", dumps(base).replace(b'"C": 2.0', b'"C": NaN')),
        ("Infinity d_k", dumps(base).replace(b'"d_k": 64', b'"d_k": Infinity')),
        ("huge int values", dumps(base).replace(b"0.1,", b"1" + b"0" * 500 + b",", 1)),
    ]:
        prof(f"doc {label}", raw)
    for path, value in [
        (("target",), DELETE),
        (("data",), DELETE),
        (("target",), "x"),
        (("target",), [1]),
        (("target", "granularity"), "pixel"),
        (("target", "granularity"), 1),
        (("target", "kind"), "magic"),
        (("target", "values"), "0.1,0.2"),
        (("target", "values"), [0.1, 0.2]),
        (("target", "values"), [0.1, 0.2, 0.3, "x"]),
        (("target", "values"), [0.1, 0.2, 0.3, None]),
        (("target", "values"), [0.1, 0.2, 0.3, True]),
        (("target", "values"), [0.1, 0.2, 0.3, [0.4]]),
        (("target", "values"), [0.1, -0.2, 0.3, 0.4]),
        (("target", "values"), [0, 0, 0, 0]),
        (("target", "values"), [0.1, 0.2, 0.3, math.nan]),
        (("target", "values"), [0.1, 0.2, 0.3, math.inf]),
        (("target", "values"), []),
        (("target", "centred"), True),
        (("target", "nu"), 0.5),
        (("data", "values"), [-1.0, 1.0, 1.0, 1.0]),
        (("data", "values"), [0.1] * 5),
        (("data", "kind"), "energies"),
        (("data", "centered"), "yes"),
        (("data", "extra"), 1),
        (("selection",), "fast"),
        (("selection",), [1]),
        (("selection",), 3),
        (("selection", "C"), 0.5),
        (("selection", "C"), -2),
        (("selection", "C"), "2"),
        (("selection", "C"), None),
        (("selection", "C"), math.inf),
        (("selection", "d_k"), 0),
        (("selection", "d_k"), -64),
        (("selection", "d_k"), "64"),
        (("selection", "lambda"), 1.01),
        (("selection", "nu_mag"), -1),
        (("selection", "nu_mag"), math.nan),
        (("selection", "mode"), "greedy"),
        (("selection", "mode"), None),
        (("selection", "zero_policy"), "ignore"),
        (("selection", "typo"), 1),
        (("basis",), "x"),
        (("basis", "d"), "4"),
        (("basis", "d"), 0),
        (("basis", "d"), 10**12),
        (("basis", "d"), 5),
        (("basis", "levels"), {"a": 1}),
        (("basis", "levels"), []),
        (("basis", "levels", 0, "dim"), 0),
        (("basis", "levels", 0, "dim"), -1),
        (("basis", "levels", 0, "dim"), 2.5),
        (("basis", "levels", 0, "dim"), 10**12),
        (("basis", "levels", 0, "index"), 3),
        (("basis", "levels", 0, "name"), 7),
        (("basis", "levels", 0), "x"),
        (("format",), "other"),
        (("version",), 2),
        (("version",), "1"),
        (("extra",), 1),
        (("task",), {"a": 1}),
        (("candidates",), "uniform"),
        (("candidates",), {"name": "x"}),
        (("candidates",), [1]),
        (("candidates",), [{"q": [0, 0, 0, 0]}]),
        (("candidates",), [{"name": 5, "q": [0, 0, 0, 0]}]),
        (("candidates",), [{"name": "x", "q": [0, 0, 0]}]),
        (("candidates",), [{"name": "x", "q": [0, 0, 0, math.nan]}]),
        (("candidates",), [{"name": "x", "q": [0, 0, 0, math.inf]}]),
        (("candidates",), [{"name": "x", "g": [1, 1, 1, 0]}]),
        (("candidates",), [{"name": "x", "g": [1, 1, 1, -1]}]),
        (("candidates",), [{"name": "x", "g": [1, 1, 1, 1], "q": [0, 0, 0, 0]}]),
        (("candidates",), [{"name": "x"}]),
        (("candidates",), [{"name": "x", "q": [0, 0, 0, 0], "colour": "red"}]),
        (("candidates",), [{"name": "x", "granularity": "atom", "q": [0, 0, 0, 0]}]),
        (("candidates",), [{"name": "x", "q_file": "/etc/passwd"}]),
        (("candidates",), [{"name": "x", "q_file": "../../etc/passwd"}]),
        (("candidates",), [{"name": "x", "q_file": "missing.csv"}]),
        (("candidates",), [{"name": "x", "q_file": ""}]),
        (("candidates",), [{"name": "x", "q_file": "d"}]),
        (("target", "values_file"), "/etc/passwd"),
        (("bootstrap",), {"target_replicates_file": "/etc/passwd", "data_replicates_file": "b.npy"}),
        (("bootstrap",), "yes"),
    ]:
        if path[-1] == "values_file":
            doc = mutate(mutate(base, path, value), ("target", "values"), DELETE)
        else:
            doc = mutate(base, path, value)
        prof(f"field {'.'.join(map(str, path))}={str(value)[:40]!r}", doc, files={"d": None})
    prof("d_k and lambda both", mutate(base, ("selection", "lambda"), 1.1))
    prof(
        "d-k flag with lambda in file",
        mutate(mutate(base, ("selection", "lambda"), 1.1), ("selection", "d_k"), DELETE),
        extra=["--d-k", "8"],
    )
    prof(
        "regularized nu_mag 1e308",
        mutate(mutate(base, ("selection", "mode"), "regularized"), ("selection", "nu_mag"), 1e308),
        "either",
        extra=["--json", "g.json"],
        check=lambda r: None if all(math.isfinite(v) for v in _report(r)["g_star_c"]) else "non-finite grading",
    )
    prof(
        "delete policy, level zeros",
        mutate(mutate(base, ("selection", "zero_policy"), "delete"), ("target", "values"), [0, 0.5, 0.5, 0.0]),
        "either",
        extra=["--json", "g.json"],
    )
    prof(
        "keep_clipped zeros cross-check",
        mutate(mutate(base, ("selection", "zero_policy"), "keep_clipped"), ("target", "values"), [0, 0.5, 0.5, 0.1]),
        "either",
        extra=["--cross-check"],
    )

    # TOML and CSV
    toml = (PROFILES / "table3_nu06_mu03.toml").read_bytes()
    for label, raw in [
        ("syntax", b"[basis\n"),
        ("selection string", toml.replace(b"[selection]\nC = 2.0", b"selection = 'x'\n[sel]\nC = 2.0")),
        ("C string", toml.replace(b"C = 2.0", b'C = "2"')),
        ("C nan", toml.replace(b"C = 2.0", b"C = nan")),
        ("C inf", toml.replace(b"C = 2.0", b"C = inf")),
        ("C huge", toml.replace(b"C = 2.0", b"C = " + b"9" * 400)),
        ("nu 1", toml.replace(b"nu = 0.6", b"nu = 1.0")),
        ("mu -0.3", toml.replace(b"mu = 0.3", b"mu = -0.3")),
        ("deep array", b"x = " + deep(10_000)),
        ("date", toml.replace(b"C = 2.0", b"C = 1979-05-27")),
        ("invalid utf-8", toml.replace(b"syntax", b"\xff\xfe")),
        ("extra table", toml + b"\n[extra]\nx = 1\n"),
    ]:
        prof(f"toml {label}", raw, ext="toml")
    csv = (PROFILES / "levels_06_03.csv").read_bytes()
    for label, raw in [
        ("header only", b"level,name,dim,a,s\n"),
        ("empty", b""),
        ("unknown column", csv.replace(b"level,name,dim,a,s", b"level,name,dim,a,s,z").replace(b"0.7057", b"0.7057,1")),
        ("dim inf", csv.replace(b",256,0.0993", b",inf,0.0993")),
        ("dim nan", csv.replace(b",256,0.0993", b",nan,0.0993")),
        ("dim 1e20", csv.replace(b",256,0.0993", b",1e20,0.0993")),
        ("level inf", csv.replace(b"0,subword", b"inf,subword")),
        ("level 1e12", csv.replace(b"3,discourse", b"1000000000000,discourse")),
        ("level -1", csv.replace(b"0,subword", b"-1,subword")),
        ("level duplicate", csv.replace(b"1,syntax", b"0,syntax")),
        ("a negative", csv.replace(b"0.0993", b"-0.0993")),
        ("a nan", csv.replace(b"0.0993", b"nan")),
        ("a text", csv.replace(b"0.0993", b"abc")),
        ("s zero", csv.replace(b"0.7057", b"0").replace(b"0.2117", b"0").replace(b"0.0635", b"0").replace(b"0.0191", b"0")),
        ("long field", csv.replace(b"syntax", b"s" * 200_000)),
        ("short row", csv + b"4,x\n"),
        ("long row", csv + b"4,x,1,0.1,0.1,9,9\n"),
        ("invalid utf-8", csv.replace(b"syntax", b"\xff\xfe")),
        ("quote", csv.replace(b"syntax", b'"syn')),
    ]:
        prof(f"csv {label}", raw, ext="csv")
    a_ok, s_ok = [0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]
    prof("csv nul byte in a name", csv.replace(b"syntax", b"syn\x00tax"), "either", ext="csv")
    prof(
        "csv markup names valid",
        level_csv(a_ok, s_ok, names=["[/]", ":emoji:", "[red]", "x"]),
        "ok",
        ext="csv",
        extra=["--json", "g.json"],
        check=grades_check(np.array(a_ok), np.array(s_ok), 2.0),
    )

    # bootstrap .npy files
    coord = example("coord1024.json")
    coord_files = {p.name: p.read_bytes() for p in PROFILES.glob("coord1024_*")}
    for label, raw in [
        ("header 1e12 elements", npy_header((1_000_000, 1_000_000))),
        ("structured dtype", npy(np.zeros((10, 1024), dtype=[("a", "<f8"), ("b", "<i4")]))),
        ("complex", npy(np.ones((10, 1024), dtype=complex))),
        ("zero rows", npy(np.zeros((0, 1024)))),
        ("wrong width", npy(np.ones((10, 7)))),
        ("1-d", npy(np.ones(1024))),
        ("3-d", npy(np.ones((2, 2, 1024)))),
        ("nan", npy(np.full((10, 1024), np.nan))),
        ("negative", npy(-np.ones((10, 1024)))),
        (
            "object",
            b"\x93NUMPY\x01\x00"
            + b"v\x00{'descr': '|O', 'fortran_order': False, 'shape': (3,), }"
            + b" " * 58
            + b"\n"
            + b"\x80\x04N.",
        ),
        ("text", b"1,2,3\n"),
        ("truncated", npy(np.ones((10, 1024)))[:500]),
        ("bool", npy(np.ones((10, 1024), dtype=bool))),
        ("fortran huge", npy_header((2**62,))),
        ("bad header", b"\x93NUMPY\x01\x00\x10\x00{'descr': 5}   \n"),
    ]:
        files = {**coord_files, "coord1024_alpha_boot.npy": raw}
        prof(f"npy {label}", coord, files=files, extra=["--json", "g.json"])

    # files and arguments
    p = {"p.json": dumps(base)}
    add("no profile", [])
    add("profile and example", ["p.json", "--example", "table3_nu06_mu03.json"], files=p)
    add("example unknown", ["--example", "nope"])
    add("example markup", ["--example", "[/]"])
    add("example path", ["--example", "../../../etc/passwd"])
    add("profile missing", ["missing.json"])
    add("profile folder", ["d.json"], files={"d.json": None})
    add("profile /proc/self/status", ["/proc/self/status"])
    add("profile /dev/null", ["/dev/null"])
    add("profile a FIFO", ["fifo.json"], files={"fifo.json": FIFO})
    add("profile under a file", ["f/p.json"], files={"f": b"x"})
    add("profile yaml", ["p.yaml"], files={"p.yaml": b"a: 1"})
    add("profile no extension", ["p"], files={"p": dumps(base)})
    add("profile .npy", ["p.npy"], files={"p.npy": npy(np.ones(3))})
    for w in WEIRD_NAMES[:6]:
        add(f"profile missing weird {w!r}", [f"{w}.json"])
    for v in BAD_FLOATS:
        if v in ("1e308",):
            continue
        add(f"--C {v!r}", ["p.json", "--C", v, "--json", "g.json"], files=p)
    for v in ["nan", "inf", "0", "-1", "1e400", "", "abc", "1e-320"]:
        add(f"--d-k {v!r}", ["p.json", "--d-k", v, "--json", "g.json"], files=p)
    for v in ["nan", "inf", "-1", "1e400", "abc"]:
        add(f"--nu-mag {v!r}", ["p.json", "--mode", "regularized", "--nu-mag", v, "--json", "g.json"], files=p)
    add("--mode bogus", ["p.json", "--mode", "best"], files=p)
    for target, files, watch in [
        ("f/g.json", {"f": b"x"}, ()),
        ("/proc/fuzz_fresh_grades", {}, ("/proc/fuzz_fresh_grades",)),
        ("d", {"d": None}, ()),
        ("nope/g.json", {}, ()),
        ("", {}, ()),
        ("fifo", {"fifo": FIFO}, ()),
    ]:
        add(f"--json {target!r}", ["p.json", "--json", target], files={**p, **files}, watch=watch)
        add(f"--table3 --json {target!r}", ["--table3", "--json", target], files=files, watch=watch)
    for v in ["0.5", "nan", "inf", "-1"]:
        add(f"--table3 --C {v}", ["--table3", "--C", v])
    add("--table3 with profile", ["--table3", "p.json"], files=p)
    add(
        "--table3 --json valid",
        ["--table3", "--json", "t.json"],
        "either",
        check=file_check("t.json", lambda b: b.startswith(b"{"), "not JSON"),
    )
    return cases


def phase_cases(rng: random.Random) -> list[Case]:
    cases: list[Case] = []
    small = ["--protocol", "custom", "--d-k", "4,8", "--T", "10", "--gamma-points", "9", "--seeds", "2", "--trials", "2000"]

    def add(name: str, argv: list[str], expect: str = "refuse", **kw: object) -> None:
        cases.append(Case("phase", name, ["phase", *argv], expect, **kw))

    add("valid small mc", [*small, "--out", "out"], "ok", check=phase_check(8.0, ["phase", *small, "--out", "out2"]))
    add(
        "valid small quad",
        ["--protocol", "custom", "--d-k", "4,16", "--T", "10,20", "--engine", "quad", "--out", "out"],
        "ok",
        check=phase_check(8.0),
    )
    add("valid gamma-max 4", [*small, "--gamma-max", "4", "--out", "out"], "ok", check=phase_check(4.0))
    add("valid sigma-t 0.5", [*small, "--sigma-t", "0.5", "--out", "out"], "ok", check=phase_check(8.0))
    add("valid variant key-only", [*small, "--variant", "key-only", "--out", "out"], "either", check=phase_check(8.0))
    add(
        "valid seed 7",
        [*small, "--seed", "7", "--out", "out"],
        "ok",
        check=phase_check(8.0, ["phase", *small, "--seed", "7", "--out", "out2"]),
    )
    add(
        "valid out with newline",
        [*small, "--out", "o\nut"],
        "ok",
        check=file_check("o\nut/summary.json", lambda b: b.startswith(b"{"), "not JSON"),
    )
    add("valid c", [*small, "--c", "0.7", "--out", "out"], "ok", check=phase_check(8.0))
    add(
        "--d-k '4,,8' (empty items skipped)", ["--protocol", "custom", "--d-k", "4,,8", "--T", "10", "--engine", "quad"], "either"
    )
    for v in ["", "a,b", "0", "-4", "10000000", str(10**400), "4.5", ",", "4;8", "1e3"]:
        add(f"--d-k {v!r}", ["--protocol", "custom", "--d-k", v, "--T", "10", "--engine", "quad"])
    for v in ["2", "0", "-10", "1e9", "10000000", str(10**400), "", "x", "10.5"]:
        add(f"--T {v!r}", ["--protocol", "custom", "--d-k", "4", "--T", v, "--engine", "quad"])
    for v in ["0", "-1", "nan", "inf", "1e200", "x", "", "1e5", "-inf"]:
        add(f"--gamma-max {v!r}", [*small, "--gamma-max", v])
    for v in ["1", "0", "-3", "10000000", "1000000000", "nan", "2.5", ""]:
        add(f"--gamma-points {v!r}", [*small, "--gamma-points", v])
    for v in ["0", "-1", "1e9", "1000000000", "20000", "nan"]:
        add(f"--seeds {v!r}", ["--protocol", "custom", "--d-k", "4", "--T", "10", "--seeds", v])
    for v in ["0", "-1", "1e12", "1000000000000", "nan", str(10**30)]:
        add(f"--trials {v!r}", ["--protocol", "custom", "--d-k", "4", "--T", "10", "--trials", v])
    for v in ["1e300", "-1", "nan", "inf", "1e5", "x"]:
        add(f"--sigma-t {v!r}", [*small, "--sigma-t", v])
    for v in ["0", "-1", "nan", "inf", "1e300", "x"]:
        add(f"--c {v!r}", [*small, "--c", v])
    for v in ["-1", "-99999999999999999999", str(10**400), "nan", "1.5"]:
        add(f"--seed {v!r}", [*small, "--seed", v], "either" if v == str(10**400) else "refuse")
    for v in ["0", "-1", "nan", "inf", "1e-9", "x"]:
        add(f"--max-memory {v!r}", [*small, "--max-memory", v])
    for v in ["0", "-1", "nan", "1e-9"]:
        add(f"--max-minutes {v!r}", [*small, "--max-minutes", v])
    add("T 10^7 default trials", ["--protocol", "custom", "--d-k", "4", "--T", "1000000"])
    add("fig7 default trials huge T ok?", ["--protocol", "fig7", "--T", "1000000"])
    add("fig7 with d-k", ["--protocol", "fig7", "--d-k", "4"])
    add("taxis with T", ["--protocol", "taxis", "--T", "10"])
    add("custom without d-k", ["--protocol", "custom", "--T", "10"])
    add("custom without T", ["--protocol", "custom", "--d-k", "4"])
    add("protocol unknown", ["--protocol", "fig9"])
    add("engine unknown", ["--engine", "exact"])
    add("variant unknown", ["--variant", "t5"])
    add("backend torch", [*small, "--backend", "torch"], "either")
    add("backend unknown", [*small, "--backend", "jax"])
    add("executor unknown", [*small, "--executor", "ray"])
    add("dask without scheduler", [*small, "--executor", "dask"])
    add("dask bad scheduler", [*small, "--executor", "dask", "--scheduler", "not-a-url"])
    add("dask unreachable scheduler", [*small, "--executor", "dask", "--scheduler", "tcp://127.0.0.1:1"])
    add("scheduler without dask", [*small, "--scheduler", "tcp://127.0.0.1:1"])
    add("unknown option", ["--bogus"])
    for target, files, watch in [
        ("f/out", {"f": b"x"}, ()),
        ("/proc/fuzz_fresh_phase", {}, ("/proc/fuzz_fresh_phase",)),
        ("/proc/self", {}, ()),
        ("f", {"f": b"x"}, ()),
        ("out", {"out/summary.json": None}, ()),
        ("out", {"out/points.csv": None}, ()),
        ("", {}, ()),
        ("/dev/null", {}, ()),
    ]:
        add(f"--out {target!r}", [*small, "--out", target], files=files, watch=watch)
    add("quad with trials", ["--protocol", "custom", "--d-k", "4", "--T", "10", "--engine", "quad", "--trials", "5"], "either")
    return cases


# --------------------------------------------------------------------------------------------


def base_run(folder: Path) -> tuple[dict, bytes]:
    """A real saved verify report of one cheap certificate (the seed of the --from mutations)."""
    run = execute(["verify", "-k", "iswiglu", "--jobs", "1", "--json", "run.json"], folder)
    if run.rc != 0:
        sys.exit(f"could not make the base report: {run.stderr}")
    raw = (folder / "run.json").read_bytes()
    return json.loads(raw), raw


def build(folder: Path) -> list[Case]:
    rng = random.Random(SEED)
    base, raw = base_run(folder)
    return [
        *verify_cases(rng),
        *claims_cases(rng, base, raw),
        *report_cases(rng, base, raw),
        *grades_cases(rng),
        *phase_cases(rng),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["verify", "claims", "report", "grades", "phase"], action="append")
    parser.add_argument("-k", dest="pattern", help="only cases whose name contains this")
    parser.add_argument("--json", type=Path, help="write the failures here")
    parser.add_argument("--workers", type=int, default=2, choices=[1, 2])
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--attncert", help="the program to test (default: this checkout's .venv/bin/attncert)")
    args = parser.parse_args()
    if args.attncert:
        ATTNCERT[:] = [args.attncert]
    with tempfile.TemporaryDirectory(prefix="fuzz_fresh_base.") as tmp:
        cases = build(Path(tmp))
    cases = [c for c in cases if (not args.only or c.command in args.only) and (not args.pattern or args.pattern in c.name)]
    if args.list:
        for c in cases:
            print(f"{c.command:7} {c.expect:7} {c.name!r}")
        print(f"{len(cases)} cases")
        return 0
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        outcomes = list(pool.map(classify, cases))
    wall = time.perf_counter() - start
    table: dict[str, Counter] = {}
    failures = []
    for case, (klass, detail) in zip(cases, outcomes, strict=True):
        table.setdefault(case.command, Counter())[klass] += 1
        if klass not in OK_CLASSES:
            failures.append({"command": case.command, "name": case.name, "argv": case.argv, "class": klass, "detail": detail})
    classes = sorted({k for c in table.values() for k in c})
    print(f"{'command':8}" + "".join(f"{k:>17}" for k in classes) + f"{'total':>8}")
    for command, counts in table.items():
        print(f"{command:8}" + "".join(f"{counts[k]:>17}" for k in classes) + f"{sum(counts.values()):>8}")
    total = Counter()
    for counts in table.values():
        total.update(counts)
    print(f"{'all':8}" + "".join(f"{total[k]:>17}" for k in classes) + f"{sum(total.values()):>8}")
    print(f"{len(cases)} inputs in {wall:.0f}s, {len(failures)} failures")
    for f in failures:
        print(f"  {f['class']:16} {f['command']:7} {f['name']!r}: {f['detail'][:240]}")
    if args.json:
        args.json.write_text(json.dumps(failures, indent=2) + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
