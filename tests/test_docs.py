"""The README shows the current registry and the commands CI runs."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attncert.certificates.frontends.docs import render

ROOT = Path(__file__).resolve().parents[1]


def test_readme_certificate_table_is_current():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert render(readme) == readme, "README is stale: run `python -m attncert.certificates.frontends.docs README.md`"


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    command = "pip install -e '.[test]' && pytest -n auto"
    assert command in readme
    assert command in ci


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed (pip install -e '.[test]')")
def test_code_is_ruff_clean():
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", str(ROOT)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
