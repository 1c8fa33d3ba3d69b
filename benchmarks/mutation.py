"""Mutation testing of theory/ and solvers/ (issue 11, section 1): does some certificate or test
notice when the code it certifies breaks?

The catalogue ``benchmarks/mutations.toml`` lists named mutations: a file under ``theory/`` or
``solvers/``, an exact source snippet (it must occur exactly once, or the harness stops), its
replacement, the papers whose certificates should notice, and optionally ``equivalent = "reason"``
for a mutation that cannot change any result.

How a mutant is judged. The tree is copied once into a scratch directory. Each mutant gets its own
import root ``<scratch>/mutants/<name>/attncert`` whose subpackages are symlinks into the copy,
except the mutated package, a directory of symlinks whose one mutated file is a real, edited copy:
nothing in the source tree is ever written. A child process (forked from a server that has
imported SymPy, SciPy and z3 once) puts that root first on its path, imports ``attncert`` from
it and runs the quick-tier certificates of the affected papers whose check mentions the mutated
function; then the papers' fast test files run under pytest; then the other certificates of
those papers. It stops at the first certificate that leaves its expected verdict or whose
negative control is no longer rejected, or at the first failing test. Everything is judged **relative to
the unmutated baseline**: a mutant is killed when the set of certificates (or tests) that miss
their expected verdict grows compared with the baseline run of the same copy, so a certificate
that is already red (say, an ERROR while the engine API changes) never kills anything. A mutant
whose run exceeds its time limit is counted as killed and listed as a timeout.

    python benchmarks/mutation.py                 # the whole catalogue, 2 processes
    python benchmarks/mutation.py -k psa_ --jobs 1
    python benchmarks/mutation.py --check         # only: every snippet matches exactly once
    python benchmarks/mutation.py --catalogue benchmarks/mutations_fresh.toml   # another catalogue
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = Path(__file__).resolve().with_name("mutations.toml")
PAPERS = ("plga", "gllm", "psa")
#: the top-level folders mapped to attncert.<name> by pyproject's package-dir
SUBPACKAGES = ("theory", "solvers", "certificates")
#: what the scratch copy needs: the package, the tests and the files tests read
COPIED = ("attncert", *SUBPACKAGES, "tests", "notebooks", "examples", "README.md", "pyproject.toml", "CONTRIBUTING.md")
#: each paper's fast test files, run against a mutant that no certificate caught (theory/exact.py's
#: procedures serve the three papers, so its tests run for each)
_PAPER_TESTS = {
    "plga": (
        "tests/test_defaults.py",
        "tests/test_exact.py",
        "tests/test_plga_theory.py",
        "tests/test_plga_mutation_guards.py",
    ),
    "gllm": (
        "tests/test_defaults.py",
        "tests/test_exact.py",
        "tests/test_gllm_theory.py",
        "tests/test_grades.py",
        "tests/test_grades_mutation_guards.py",
        "tests/test_gllm_lumped.py",
        # the Cor 4 level dims and the report's modes (forty-fourth session; 1.3 s): set 145's mutant of the
        # level penalty met them only in the whole suite
        "tests/test_audit_grades.py",
    ),
    "psa": (
        "tests/test_defaults.py",
        "tests/test_exact.py",
        "tests/test_backend.py",
        "tests/test_phase.py",
        "tests/test_psa_mutation_guards.py",
        "tests/test_psa_helpers.py",
    ),
}
#: the guards of the fresh and random sets (any paper; about 5 s in all): every other
#: tests/test_*_mutation_guards.py, found on disk so that a new set's file cannot be left out
_GUARDS = tuple(
    sorted(
        {f"tests/{p.name}" for p in (ROOT / "tests").glob("test_*_mutation_guards.py")}
        - {f for files in _PAPER_TESTS.values() for f in files}
    )
)
TESTS = {paper: (*files, *_GUARDS) for paper, files in _PAPER_TESTS.items()}
STATUSES = ("killed", "timeout", "survived", "equivalent", "invalid")


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str
    find: str
    replace: str
    papers: tuple[str, ...]
    equivalent: str | None = None
    tests: tuple[str, ...] = ()  # test files beyond the papers' fast ones

    @property
    def package(self) -> str:
        return self.file.split("/", 1)[0]


@dataclass
class Outcome:
    mutation: Mutation
    status: str
    killed_by: str = ""
    detail: str = ""
    seconds: float = 0.0


@dataclass
class Baseline:
    """What misses (or reaches) its expected verdict on the unmutated copy."""

    failing_certificates: set[str] = field(default_factory=set)
    failing_tests: set[str] = field(default_factory=set)
    durations: dict[str, float] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    suite_seconds: float = 0.0  # the whole test suite, serial (``--suite``)


# --- the catalogue --------------------------------------------------------------------------------
def load_mutations(path: Path = CATALOGUE) -> list[Mutation]:
    """The catalogue's mutations, in file order."""
    with path.open("rb") as fh:
        entries = tomllib.load(fh)["mutation"]
    return [
        Mutation(
            name=e["name"],
            file=e["file"],
            find=e["find"],
            replace=e["replace"],
            papers=tuple(e["papers"]),
            equivalent=e.get("equivalent"),
            tests=tuple(e.get("tests", ())),
        )
        for e in entries
    ]


def catalogue_problems(mutations: Sequence[Mutation], root: Path = ROOT) -> list[str]:
    """Everything that makes the catalogue dishonest: a snippet that is not found exactly once, a
    no-op replacement, a file outside theory/ and solvers/, an unknown paper, a duplicate name."""
    problems, seen = [], set()
    for m in mutations:
        if m.name in seen:
            problems.append(f"{m.name}: duplicate name")
        seen.add(m.name)
        if m.package not in ("theory", "solvers"):
            problems.append(f"{m.name}: {m.file} is not under theory/ or solvers/")
            continue
        if not m.papers or set(m.papers) - set(PAPERS):
            problems.append(f"{m.name}: papers must be a nonempty subset of {PAPERS}, not {m.papers}")
        if m.find == m.replace:
            problems.append(f"{m.name}: the replacement equals the snippet")
        source = root / m.file
        count = source.read_text().count(m.find) if source.is_file() else 0
        if count != 1:
            problems.append(f"{m.name}: snippet found {count} times in {m.file} (must be exactly once): {m.find!r}")
    return problems


def mutated_source(m: Mutation, root: Path) -> str:
    text = (root / m.file).read_text()
    if text.count(m.find) != 1:
        raise ValueError(f"{m.name}: snippet not found exactly once in {m.file}")
    return text.replace(m.find, m.replace)


def subjects(m: Mutation, root: Path) -> list[str]:
    """Names of the functions, methods, classes and constants around the mutated snippet, and of
    the module's top-level definitions that use them (transitively): the certificates that mention
    one of these run first."""
    text = (root / m.file).read_text()
    line = text[: text.index(m.find)].count("\n") + 1
    tree = ast.parse(text)
    names: set[str] = set()
    for node in ast.walk(tree):
        end = getattr(node, "end_lineno", None)
        if end is None or not node.lineno <= line <= end:
            continue
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    uses = {
        node.name: {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.ClassDef)
    }
    grown = True
    while grown:
        callers = {name for name, used in uses.items() if used & names} - names
        names |= callers
        grown = bool(callers)
    return sorted(n for n in names if not n.startswith("__"))


# --- scratch copies ---------------------------------------------------------------------------------
def find_shared(root: Path) -> Path | None:
    """The shared/ folder (spec and papers) of this checkout: in the tree or above it."""
    for parent in (root, *root.parents):
        if (parent / "shared" / "spec").is_dir():
            return parent / "shared"
    return None


def snapshot(root: Path, scratch: Path) -> Path:
    """Copy what the mutants need into ``scratch/tree`` (once per run)."""
    tree = scratch / "tree"
    tree.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in COPIED:
        src = root / name
        if src.is_dir():
            shutil.copytree(src, tree / name, ignore=ignore)
        elif src.is_file():
            shutil.copy2(src, tree / name)
    shared = find_shared(root)
    if shared is not None:
        (tree / "shared").symlink_to(shared)
    shutil.copy2(Path(__file__).resolve(), scratch / "worker.py")
    return tree


def import_root(tree: Path, scratch: Path, m: Mutation | None) -> Path:
    """An import root whose ``attncert`` is the copy, with ``m`` applied (None: unmutated)."""
    top = scratch / "mutants" / (m.name if m else "_baseline")
    pkg = top / "attncert"
    if m is None and pkg.is_dir():
        return top
    pkg.mkdir(parents=True)
    for f in (tree / "attncert").glob("*.py"):
        (pkg / f.name).symlink_to(f)
    for sub in SUBPACKAGES:
        if m is None or m.package != sub:
            (pkg / sub).symlink_to(tree / sub, target_is_directory=True)
            continue
        (pkg / sub).mkdir()
        for f in (tree / sub).iterdir():
            if f.name != "__pycache__" and f.name != Path(m.file).name:
                (pkg / sub / f.name).symlink_to(f)
        (pkg / sub / Path(m.file).name).write_text(mutated_source(m, tree))
    return top


# --- running ----------------------------------------------------------------------------------------
def _env(top: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(top)
    env["PYTHONHASHSEED"] = "0"
    env.pop("PYTEST_ADDOPTS", None)
    return env


#: imported once by each fork server, so that a mutant's run starts with them loaded; never
#: ``attncert``, which every child imports from its own mutant's root
PRELOADED = ("numpy", "scipy.linalg", "scipy.optimize", "scipy.special", "scipy.integrate", "scipy.stats", "sympy", "z3")


class _ForkServer:
    """A process (``worker.py --serve``) that imports the heavy dependencies once and then forks
    one child per request: the child imports ``attncert`` from the mutant's root and runs the
    request's certificates (``_worker``). The server kills a child that runs past the request's
    time limit. Saves the 2 s of importing SymPy and SciPy per mutant."""

    def __init__(self, script: Path) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")}
        env.update(PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1")
        # the server's (and its children's) stderr is kept, so that a server that stops can say why
        self.stderr = tempfile.TemporaryFile("w+")
        self.process = subprocess.Popen(
            [sys.executable, str(script), "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
            env=env,
        )

    def run(self, top: Path, request_path: Path, timeout: float) -> dict:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"top": str(top), "request": str(request_path), "timeout": timeout}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            code = self.process.wait()
            self.stderr.seek(0)
            raise RuntimeError(f"the fork server stopped (exit {code}); its stderr ends:\n{self.stderr.read()[-3000:]}")
        return json.loads(line)

    def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait()
        self.stderr.close()


_SERVERS: queue.SimpleQueue[_ForkServer] = queue.SimpleQueue()
_ALL_SERVERS: list[_ForkServer] = []


@contextlib.contextmanager
def _servers() -> Iterator[None]:
    """Stop every fork server started inside the block when it ends."""
    try:
        yield
    finally:
        while _ALL_SERVERS:
            _ALL_SERVERS.pop().stop()
        while not _SERVERS.empty():
            _SERVERS.get()


def _run_worker(top: Path, request: dict, timeout: float) -> dict:
    """Run the certificates of ``request`` in a child importing ``attncert`` from ``top`` (forked
    from a server of this run; one server per concurrent caller)."""
    req = top / "request.json"
    req.write_text(json.dumps(request))
    try:
        server = _SERVERS.get_nowait()
    except queue.Empty:
        server = _ForkServer(top.parents[1] / "worker.py")
        _ALL_SERVERS.append(server)
    try:
        status = server.run(top, req, timeout)
    finally:
        _SERVERS.put(server)
    if status.get("timeout"):
        raise subprocess.TimeoutExpired("mutant worker", timeout)
    out = top / "result.json"
    if status["exit"] != 0 or not out.is_file():
        log = top / "worker.log"
        lines = log.read_text(errors="replace").strip().splitlines() if log.is_file() else []
        return {"crashed": f"worker exited {status['exit']}: {(lines or ['no output'])[-1]}"}
    return json.loads(out.read_text())


def _serve() -> None:
    """The fork server's loop: one JSON request per line on stdin, one JSON reply per line."""
    import importlib
    import signal
    import traceback

    for name in PRELOADED:
        importlib.import_module(name)
    while line := sys.stdin.readline():
        request = json.loads(line)
        top = request["top"]
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code = 1
            try:
                log = os.open(Path(top) / "worker.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
                os.dup2(log, 1), os.dup2(log, 2)
                os.chdir(top)
                sys.path.insert(0, top)
                os.environ["PYTHONPATH"] = top  # for any process the checks start
                _worker(Path(request["request"]))
                code = 0
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stdout.flush(), sys.stderr.flush()
                os._exit(code)
        deadline = time.monotonic() + request["timeout"]
        reply: dict = {}
        while not reply:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                reply = {"exit": os.waitstatus_to_exitcode(status)}
            elif time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                reply = {"timeout": True}
            else:
                time.sleep(0.01)
        print(json.dumps(reply), flush=True)


#: a pytest plugin, written into the mutant's root: refuse to test anything but the mutant
_IMPORT_CHECK = """from pathlib import Path


def pytest_sessionstart(session):
    import attncert.solvers
    import attncert.theory

    here = Path(__file__).parent
    for module in (attncert.theory, attncert.solvers):
        if here not in Path(module.__file__).parents:
            raise RuntimeError(f"{module.__name__} imported from {module.__file__}, not from the mutant {here}")
"""


def _check_import_root(top: Path) -> None:
    """Stop when ``attncert`` (the worker's import) does not come from the mutant's root ``top``
    (an editable install of the source tree must never stand in for the mutant)."""
    import attncert.solvers
    import attncert.theory

    for module in (attncert.theory, attncert.solvers):
        if top not in Path(module.__file__).parents:
            raise RuntimeError(f"{module.__name__} imported from {module.__file__}, not from {top}")


def _run_tests(
    top: Path, tree: Path, files: Iterable[str], timeout: float, known: Iterable[str] | None = None, *, slow: bool = False
) -> set[str] | str:
    """Test ids that fail (or error) under pytest, or a string when pytest itself could not run.

    pytest runs from the import root ``top`` (so ``attncert`` is the mutant's, which a plugin
    checks) on the copy's test files. For a mutant, ``known`` lists the tests that already fail on
    the baseline: they are deselected and the run stops at the first failure. The baseline run
    passes ``known=None`` to see every failure. ``slow`` also runs the tests marked slow.
    """
    paths = [str(tree / f) for f in dict.fromkeys(files) if (tree / f).is_file()]
    if not paths:
        return set()
    report = top / "junit.xml"
    (top / "_mutant_import_check.py").write_text(_IMPORT_CHECK)
    cmd = [sys.executable, "-m", "pytest", "-q", *(() if slow else ("-m", "not slow")), "-p", "no:cacheprovider"]
    cmd += ["-p", "_mutant_import_check", "-p", "no:xdist", "-o", "addopts="]
    cmd += [f"--rootdir={tree}", "-c", str(tree / "pyproject.toml"), f"--junitxml={report}"]
    if known is not None:
        cmd += ["-x", *(f"--deselect={t}" for t in known)]
    proc = subprocess.run([*cmd, *paths], env=_env(top), cwd=top, capture_output=True, text=True, timeout=timeout)
    if not report.is_file():
        return f"pytest exited {proc.returncode} without a report"
    failing = set()
    for case in ET.parse(report).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failing.add(f"{case.get('classname').replace('.', '/')}.py::{case.get('name')}")
    if proc.returncode not in (0, 1):
        failing.add(f"pytest exit status {proc.returncode}")
    return failing


def suite_files(tree: Path) -> list[str]:
    """Every test file of the copy but the mutation tests (which run mutants themselves)."""
    return sorted(f"tests/{p.name}" for p in (tree / "tests").glob("test_*.py") if p.name != "test_mutation.py")


def baseline(tree: Path, scratch: Path, papers: Sequence[str], timeout: float, suite: bool = False) -> Baseline:
    top = import_root(tree, scratch, None)
    base = Baseline()
    if suite:
        start = time.perf_counter()
        tests = _run_tests(top, tree, suite_files(tree), 4 * timeout, known=None, slow=True)
        if isinstance(tests, str):
            raise RuntimeError(f"the unmutated test suite does not run: {tests}")
        base.failing_tests |= tests
        base.suite_seconds = time.perf_counter() - start
    for paper in papers:
        start = time.perf_counter()
        result = _run_worker(top, {"papers": [paper], "baseline": [], "subjects": [], "stop_early": False}, timeout)
        if "crashed" in result:
            raise RuntimeError(f"the unmutated tree does not run ({paper}): {result['crashed']}")
        base.failing_certificates |= set(result["failing"])
        base.durations.update(result["durations"])
        tests = _run_tests(top, tree, TESTS[paper], timeout, known=None)
        if isinstance(tests, str):
            raise RuntimeError(f"the unmutated tests do not run ({paper}): {tests}")
        base.failing_tests |= tests
        base.seconds[paper] = time.perf_counter() - start
    return base


def judge(
    m: Mutation, tree: Path, scratch: Path, base: Baseline, timeout: float, run_tests: bool = True, suite: bool = False
) -> Outcome:
    """Apply ``m`` in its own import root and decide: killed, timeout or survived. With ``suite``,
    a mutant that every stage missed meets the whole test suite, slow tests included, last."""
    if m.equivalent:
        return Outcome(m, "equivalent", detail=m.equivalent)
    start = time.perf_counter()
    try:
        top = import_root(tree, scratch, m)
    except ValueError as exc:
        return Outcome(m, "invalid", detail=str(exc))
    request = {
        "papers": list(m.papers),
        "baseline": sorted(base.failing_certificates),
        "durations": base.durations,
        "subjects": subjects(m, tree),
        "stop_early": True,
    }
    # Cheapest likely killers first: the certificates whose check names the mutated code, then the
    # papers' fast tests, then every other certificate (a survivor runs all three either way).
    stages = ["relevant", "tests", "rest"] if run_tests else ["relevant", "rest"]
    limit = timeout
    try:
        for stage in [*stages, "suite"] if suite else stages:
            if stage in ("tests", "suite"):
                files = [*(f for p in m.papers for f in TESTS[p]), *m.tests] if stage == "tests" else suite_files(tree)
                # the suite gets three times its baseline duration: only a real hang should time out
                limit = timeout if stage == "tests" else max(timeout, 3 * base.suite_seconds)
                failing = _run_tests(top, tree, files, limit, known=base.failing_tests, slow=stage == "suite")
                if isinstance(failing, str):
                    return Outcome(m, "killed", "pytest", failing, time.perf_counter() - start)
                new_tests = sorted(failing - base.failing_tests)
                if new_tests:
                    detail = "test fails" if stage == "tests" else "test fails (whole-suite stage)"
                    return Outcome(m, "killed", new_tests[0], detail, time.perf_counter() - start)
                continue
            result = _run_worker(top, {**request, "certificates": stage}, timeout)
            if "crashed" in result:
                return Outcome(m, "killed", "import", result["crashed"], time.perf_counter() - start)
            new = [c for c in result["failing"] if c not in base.failing_certificates]
            if new:
                detail = f"{result['verdicts'][new[0]]} [{stage} certificate {len(result['verdicts'])} tried]"
                return Outcome(m, "killed", new[0], detail, time.perf_counter() - start)
    except subprocess.TimeoutExpired:
        return Outcome(m, "timeout", "time limit", f"> {limit:.0f} s", time.perf_counter() - start)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    red = [c for c in result["relevant"] if c in base.failing_certificates]
    green = [c for c in result["relevant"] if c not in base.failing_certificates]
    detail = (
        f"certificates whose check names the mutated code: green and blind to it: {', '.join(green) or 'none'}; "
        f"red on the baseline already: {', '.join(red) or 'none'}"
    )
    return Outcome(m, "survived", detail=detail, seconds=time.perf_counter() - start)


def run(
    mutations: Sequence[Mutation],
    *,
    root: Path = ROOT,
    jobs: int = 2,
    timeout: float | None = None,
    run_tests: bool = True,
    suite: bool = False,
    progress=None,
) -> tuple[list[Outcome], Baseline]:
    """Judge every mutation against the baseline (the whole quick tier of the affected papers and
    their tests) of a fresh scratch copy of ``root``. ``suite`` needs the tests (``run_tests``)."""
    problems = catalogue_problems(mutations, root)
    if problems:
        raise ValueError("the mutation catalogue does not match the source:\n" + "\n".join(problems))
    papers = [p for p in PAPERS if any(p in m.papers for m in mutations if not m.equivalent)]
    with tempfile.TemporaryDirectory(prefix="attncert-mutation-") as tmp, _servers():
        scratch = Path(tmp)
        tree = snapshot(root, scratch)
        suite = suite and run_tests
        base = baseline(tree, scratch, papers, timeout or 900.0, suite)
        limit = timeout or max(120.0, 4 * max(base.seconds.values(), default=30.0))

        def one(m: Mutation) -> Outcome:
            outcome = judge(m, tree, scratch, base, limit, run_tests, suite)
            if progress:
                progress(outcome)
            return outcome

        with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
            outcomes = list(pool.map(one, interleaved(mutations)))
    return sorted(outcomes, key=lambda o: mutations.index(o.mutation)), base


def interleaved(mutations: Sequence[Mutation]) -> list[Mutation]:
    """The mutations taken in turn from each file, so that a partial run samples every file."""
    by_file: dict[str, list[Mutation]] = {}
    for m in mutations:
        by_file.setdefault(m.file, []).append(m)
    columns = list(by_file.values())
    return [col[i] for i in range(max(map(len, columns), default=0)) for col in columns if i < len(col)]


def run_targeted(
    killers: Mapping[str, str], *, root: Path = ROOT, jobs: int = 2, timeout: float = 300.0
) -> dict[str, tuple[bool, str]]:
    """For each ``mutation name -> certificate id``: whether that certificate reaches its expected
    verdict on the unmutated copy and misses it on the mutant. One worker runs all the named
    certificates on the baseline, then one worker per mutant runs its certificate (the CI subset).
    Returns ``name -> (killed, what happened)``."""
    mutations = {m.name: m for m in load_mutations() if m.name in killers}
    missing = sorted(set(killers) - set(mutations))
    problems = catalogue_problems(list(mutations.values()), root) + [f"{n}: no such mutation" for n in missing]
    if problems:
        raise ValueError("the mutation catalogue does not match the source:\n" + "\n".join(problems))
    with tempfile.TemporaryDirectory(prefix="attncert-mutation-") as tmp, _servers():
        scratch = Path(tmp)
        tree = snapshot(root, scratch)
        certs = sorted(set(killers.values()))
        papers = sorted({c.split(".", 1)[0] for c in certs})
        request = {"papers": papers, "only": certs, "baseline": [], "subjects": [], "stop_early": False}
        base = _run_worker(import_root(tree, scratch, None), request, timeout)
        if "crashed" in base:
            raise RuntimeError(f"the unmutated tree does not run: {base['crashed']}")
        unknown = set(certs) - set(base["verdicts"])
        if unknown:
            raise ValueError(f"no quick-tier certificate named {sorted(unknown)}")

        def one(name: str) -> tuple[str, tuple[bool, str]]:
            cert = killers[name]
            if cert in base["failing"]:
                return name, (False, f"{cert} already misses its verdict on the baseline: {base['verdicts'][cert]}")
            top = import_root(tree, scratch, mutations[name])
            paper = cert.split(".", 1)[0]
            req = {"papers": [paper], "only": [cert], "baseline": [], "subjects": [], "stop_early": False}
            try:
                result = _run_worker(top, req, timeout)
            except subprocess.TimeoutExpired:
                return name, (True, f"timeout after {timeout:.0f} s")
            finally:
                shutil.rmtree(top, ignore_errors=True)
            if "crashed" in result:
                return name, (True, result["crashed"])
            return name, (cert in result["failing"], result["verdicts"][cert])

        with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
            return dict(pool.map(one, list(killers)))


# --- the worker (runs inside the mutant's import root) ----------------------------------------------
def _worker(request_path: Path) -> None:
    """Run the requested quick-tier certificates, most relevant first; write result.json beside
    the request. Stops at the first certificate outside the baseline that misses its verdict."""
    import inspect

    from attncert.certificates.engine.model import Context, Tier
    from attncert.certificates.engine.registry import select
    from attncert.certificates.engine.runner import run_one

    request = json.loads(request_path.read_text())
    _check_import_root(request_path.parent)
    known_bad = set(request["baseline"])
    durations = request.get("durations", {})
    names = request["subjects"]
    only = set(request.get("only") or ())
    certs = [c for paper in request["papers"] for c in select(paper=paper, tier=Tier.QUICK) if not only or c.id in only]

    def relevance(cert) -> tuple[int, float]:
        try:
            own = inspect.getsource(cert.check)
            module = inspect.getsource(inspect.getmodule(cert.check))
        except (OSError, TypeError):
            own = module = ""
        rank = 0 if any(n in own for n in names) else 1 if any(n in module for n in names) else 2
        return rank, durations.get(cert.id, 1.0)

    ctx = Context()
    failing, verdicts, took = [], {}, {}
    # "relevant": only the certificates whose check names the mutated code; "rest": only the others
    stage = request.get("certificates", "all")
    chosen = [c for c in certs if stage == "all" or (relevance(c)[0] == 0) == (stage == "relevant")]
    for cert in sorted(chosen, key=relevance):
        if request["stop_early"] and cert.id in known_bad:
            continue  # already red on the baseline: it cannot kill this mutant
        # the negative control is part of the certificate: a mutant that lets it pass is caught too
        result = run_one(cert, ctx, negative_control=True)
        control = result.negative_control.evidence
        verdicts[cert.id] = (
            f"{result.verdict} (expected {cert.expected}): {result.outcome.evidence.summary}"
            if not result.as_expected or result.mutant_killed
            else f"negative control not rejected: {control.verdict}: {control.summary}"
        )[:300]
        took[cert.id] = result.outcome.duration_s + result.negative_control.duration_s
        if not (result.as_expected and result.mutant_killed):
            failing.append(cert.id)
            if request["stop_early"] and cert.id not in known_bad:
                break
    relevant = [c.id for c in certs if relevance(c)[0] == 0]
    out = {"failing": failing, "verdicts": verdicts, "durations": took, "relevant": relevant}
    request_path.with_name("result.json").write_text(json.dumps(out))


# --- the report ----------------------------------------------------------------------------------------
def score(outcomes: Sequence[Outcome]) -> tuple[int, int]:
    """(killed including timeouts, non-equivalent total)."""
    judged = [o for o in outcomes if o.status in ("killed", "timeout", "survived")]
    return sum(o.status != "survived" for o in judged), len(judged)


def report(outcomes: Sequence[Outcome], base: Baseline, wall: float) -> str:
    killed, total = score(outcomes)
    counts = {s: sum(o.status == s for o in outcomes) for s in STATUSES}
    lines = [
        f"mutation score: {killed}/{total} = {100 * killed / max(total, 1):.1f}% of non-equivalent mutants killed",
        "  " + ", ".join(f"{k} {v}" for k, v in counts.items()),
        f"  baseline: {len(base.failing_certificates)} certificates and {len(base.failing_tests)} tests already miss "
        "their expected verdict on the unmutated tree (they kill nothing)",
        f"  wall time: {wall:.0f} s",
    ]
    for status in ("survived", "equivalent", "invalid", "timeout"):
        chosen = [o for o in outcomes if o.status == status]
        if chosen:
            lines.append(f"{status}:")
            lines += [f"  {o.mutation.name} [{', '.join(o.mutation.papers)}] {o.mutation.file}: {o.detail}" for o in chosen]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", dest="pattern", help="only mutations whose name contains PATTERN (several: comma-separated)")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run in parallel (default 2)")
    parser.add_argument("--timeout", type=float, help="seconds per mutant (default 4x the slowest baseline paper)")
    parser.add_argument("--no-tests", action="store_true", help="judge by certificates only")
    parser.add_argument(
        "--suite", action="store_true", help="a mutant the stages miss meets the whole test suite last (slow tests too)"
    )
    parser.add_argument("--check", action="store_true", help="only check that every snippet matches exactly once")
    parser.add_argument("--json", type=Path, help="write every outcome here")
    parser.add_argument(
        "--catalogue", type=Path, default=CATALOGUE, help="the mutation catalogue to run (default: benchmarks/mutations.toml)"
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        _serve()
        return 0
    mutations = load_mutations(args.catalogue)
    if args.pattern:
        parts = [p for p in args.pattern.split(",") if p]
        mutations = [m for m in mutations if any(p in m.name for p in parts)]
    problems = catalogue_problems(mutations)
    if args.check or problems:
        print("\n".join(problems) or f"{len(mutations)} mutations, every snippet matches exactly once")
        return 1 if problems else 0
    start = time.perf_counter()

    def show(o: Outcome) -> None:
        print(f"{o.status:10} {o.mutation.name:45} {o.seconds:6.1f} s  {o.killed_by}", flush=True)

    outcomes, base = run(
        mutations, jobs=args.jobs, timeout=args.timeout, run_tests=not args.no_tests, suite=args.suite, progress=show
    )
    print(report(outcomes, base, time.perf_counter() - start))
    if args.json:
        rows = [
            {
                "name": o.mutation.name,
                "file": o.mutation.file,
                "papers": o.mutation.papers,
                "status": o.status,
                "killed_by": o.killed_by,
                "detail": o.detail,
                "seconds": round(o.seconds, 2),
            }
            for o in outcomes
        ]
        args.json.write_text(
            json.dumps({"baseline_failing": sorted(base.failing_certificates | base.failing_tests), "outcomes": rows}, indent=1)
        )
    return 0 if all(o.status != "survived" for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
