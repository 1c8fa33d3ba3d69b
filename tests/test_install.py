"""A clean first run (issue 9): one import root, a wheel with nothing else at top level, no GPU
wheels in the test extra, fast and lazy start-up, files that honour the umask."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from attncert.certificates.frontends import cli
from attncert.certificates.frontends.common import write_atomically

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


# --dist loadscope runs this module on one worker: one build, never two at once in the tree's build/
@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("wheel")
    proc = _run(["-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)], ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (path,) = out.glob("attncert-*.whl")
    return zipfile.ZipFile(path)


def test_wheel_has_one_import_root(wheel):
    tops = {name.split("/", 1)[0] for name in wheel.namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"attncert"}
    names = set(wheel.namelist())
    for module in ("attncert/theory/psa.py", "attncert/solvers/grades.py", "attncert/certificates/engine/runner.py"):
        assert module in names


def test_wheel_ships_the_catalogues_and_a_license(wheel):
    names = wheel.namelist()
    for paper in ("plga", "gllm", "psa"):
        assert f"attncert/certificates/catalog/{paper}.toml" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    metadata = next(wheel.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
    assert "License-Expression: MIT" in metadata


def test_wheel_ships_every_example_profile_the_readme_names(wheel):
    # the README points users at examples/profiles/bad/; a glob one level too shallow left it out
    names = set(wheel.namelist())
    data = [p for folder in ("catalog", "examples") for p in (ROOT / "certificates" / folder).rglob("*") if p.is_file()]
    assert any(p.parent.name == "bad" for p in data)
    missing = [str(p.relative_to(ROOT)) for p in data if f"attncert/{p.relative_to(ROOT)}" not in names]
    assert missing == []


def test_python_dash_m_attncert_ignores_shadowing_folders(tmp_path):
    for name in ("theory", "solvers", "certificates"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("raise ImportError('a shadowing folder was imported')\n")
    proc = _run(["-m", "attncert", "verify", "--list", "--paper", "gllm"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "gllm." in proc.stdout


def test_no_generic_top_level_modules_are_importable(tmp_path):
    proc = _run(["-c", "import theory"], tmp_path)
    assert proc.returncode != 0 and "No module named 'theory'" in proc.stderr


def test_help_imports_nothing_numerical(tmp_path):
    code = (
        "import sys\n"
        "from attncert.certificates.frontends.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = sorted(m for m in ('numpy', 'scipy', 'sympy', 'cvxpy', 'rich', 'mpmath') if m in sys.modules)\n"
        "print('HEAVY', heavy)\n"
    )
    proc = _run(["-c", code], tmp_path)
    assert "HEAVY []" in proc.stdout, proc.stdout[-500:] + proc.stderr[-500:]


def test_grades_on_a_profile_imports_neither_scipy_nor_sympy(tmp_path):
    """The start-up target of `attncert grades PROFILE` (benchmarks/startup.py) rests on this."""
    profile = ROOT / "certificates" / "examples" / "profiles" / "table3_nu08_mu04.json"
    code = (
        "import sys\n"
        "from attncert.certificates.frontends.cli import main\n"
        f"assert main(['grades', {str(profile)!r}]) == 0\n"
        "print('HEAVY', sorted(m for m in ('scipy', 'sympy', 'cvxpy') if m in sys.modules))\n"
    )
    proc = _run(["-c", code], tmp_path)
    assert "HEAVY []" in proc.stdout, proc.stdout[-500:] + proc.stderr[-500:]


def test_cli_choices_mirror_the_engines():
    from attncert.certificates.engine.model import Context, Tier
    from attncert.certificates.engine.registry import PAPERS
    from attncert.solvers.backend import BACKENDS
    from attncert.solvers.score_model import VARIANTS
    from attncert.solvers.sweep import EXECUTORS
    from attncert.theory.psa import SIGMA_T_DEFAULT

    assert cli.PAPERS == PAPERS
    assert cli.TIERS == tuple(t.value for t in Tier)
    assert cli.BACKENDS == BACKENDS
    assert cli.VARIANTS == VARIANTS
    assert cli.EXECUTORS == EXECUTORS
    assert cli.DEFAULT_SEED == Context().seed
    assert cli.SIGMA_T_DEFAULT == SIGMA_T_DEFAULT


def _requirement_name(requirement: str) -> str:
    """The distribution name of a PEP 508 requirement ("dask[distributed]>=2024.1" -> "dask"), lower case."""
    return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower()


#: imported only where a user asked for them (a GPU backend, a dask scheduler, a figure), each behind
#: a message that names what to install: not base dependencies
OPTIONAL_IMPORTS = {"torch", "cupy", "dask", "matplotlib"}
#: import name -> distribution name, where they differ
DISTRIBUTIONS = {"z3": "z3-solver", "array_api_compat": "array-api-compat"}


def test_every_import_of_the_package_is_a_base_dependency():
    """`pip install -e . && attncert verify` (the README's first command) installs only the base
    dependencies: every third-party module that theory/, solvers/ or certificates/ imports must be one
    of them, or optional on purpose. (z3, used by the exact certificates, was once only a test extra.)"""
    import ast

    base = {_requirement_name(req) for req in PYPROJECT["project"]["dependencies"]}
    imported: dict[str, str] = {}
    for folder in ("theory", "solvers", "certificates"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                for name in names:
                    imported.setdefault(name.split(".")[0], str(path.relative_to(ROOT)))
    third_party = {m: where for m, where in imported.items() if m not in sys.stdlib_module_names and m != "attncert"}
    missing = {m: where for m, where in third_party.items() if m not in OPTIONAL_IMPORTS and DISTRIBUTIONS.get(m, m) not in base}
    assert not missing, f"imported but not in [project] dependencies: {missing}"


def test_test_extra_pulls_no_gpu_wheels():
    for extra, requirements in PYPROJECT["project"]["optional-dependencies"].items():
        for req in requirements:
            name = _requirement_name(req)
            assert name not in {"torch", "cupy", "triton", "jax", "jaxlib"} and not name.startswith(("nvidia-", "cupy-")), (
                f"extra {extra!r} requires {req!r}: on a machine with a CUDA driver that pulls GPU wheels"
            )


def test_output_files_honour_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        target = tmp_path / "report.json"
        write_atomically(target, "{}\n")
        assert target.stat().st_mode & 0o777 == 0o644
        os.umask(0o077)
        write_atomically(target, "{}\n")
        assert target.stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(old)


def test_no_reference_to_files_the_repository_lacks():
    """Every upper-case top-level document a tracked file names (README.md, LICENSE...) exists."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for name in tracked:
        path = ROOT / name
        if path.suffix in {".py", ".md", ".toml", ".cfg"} or name == ".ci/run":
            text = path.read_text(encoding="utf-8", errors="replace")
            for doc in set(re.findall(r"(?<![/\w.])([A-Z][A-Z_]{2,}\.md)\b", text)):
                assert (ROOT / doc).is_file(), f"{name} refers to {doc}, which the repository does not have"


def test_readme_examples_write_into_the_ignored_out_folder():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", readme, flags=re.S)
    targets = re.findall(r"--(?:out|json|markdown)\s+(\S+)", "\n".join(blocks))
    assert targets, "the README shows no command that writes a file"
    assert all(t.startswith("out/") for t in targets), targets
    assert "/out/" in (ROOT / ".gitignore").read_text(encoding="utf-8").split()
