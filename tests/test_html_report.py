"""`attncert report` opens in headless Chromium, shows every certificate, and its filters work."""

import importlib.util
import shutil
from pathlib import Path

import pytest

from attncert.certificates.engine.model import Tier
from attncert.certificates.engine.registry import select
from attncert.certificates.frontends.cli import main

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report")
    figures = [] if importlib.util.find_spec("matplotlib") else ["--no-figures"]
    assert main(["report", "--out", str(out), "--paper", "psa", *figures]) == 0
    return out


def test_report_is_self_contained_and_lists_every_certificate(report):
    page = (report / "index.html").read_text(encoding="utf-8")
    for cert in select(paper="psa", tier=Tier.QUICK):
        assert f'id="{cert.id}"' in page
    assert "<script src" not in page and "<link" not in page  # no external assets
    for img in ("fig7a_gamma_c_vs_dk.png", "gllm_gain_vs_clip.png"):
        if importlib.util.find_spec("matplotlib"):
            assert (report / img).is_file() and img in page


@pytest.mark.skipif(
    CHROMIUM is None or importlib.util.find_spec("playwright") is None,
    reason="needs Debian's chromium and the playwright package (.ci/run installs both)",
)
def test_report_in_headless_chromium(report, tmp_path):
    from playwright.sync_api import sync_playwright

    n = len(select(paper="psa", tier=Tier.QUICK))
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        page = browser.new_page()
        page.goto((report / "index.html").as_uri())
        assert page.locator("tr.cert").count() == n
        assert page.locator("#shown").inner_text() == str(n)
        page.select_option("#verdict", "REFUTED")
        refuted = [c for c in select(paper="psa", tier=Tier.QUICK) if c.expected.value == "REFUTED"]
        assert page.locator("#shown").inner_text() == str(len(refuted))
        assert page.locator("tr.cert:visible").count() == len(refuted)
        page.select_option("#verdict", "all")
        page.select_option("#paper", "psa")
        assert page.locator("tr.cert:visible").count() == n
        page.screenshot(path=str(tmp_path / "report.png"), full_page=False)
        browser.close()
    assert (tmp_path / "report.png").stat().st_size > 10_000


def test_report_from_a_saved_run_shows_scopes_and_parts_without_running(tmp_path):
    """`report --from` renders a saved run: no certificate module (and no SymPy) is imported."""
    import json
    import subprocess
    import sys

    from attncert.certificates.engine.model import (
        Certificate,
        Claim,
        Context,
        Evidence,
        Method,
        Mutant,
        Provenance,
        Scope,
        Verdict,
    )
    from attncert.certificates.engine.runner import run_all
    from attncert.certificates.frontends.common import dump_json
    from attncert.certificates.frontends.verify_output import report_json

    def exact(ctx, *, scope):
        verdict = Verdict.PROVED if scope != "instance" else Verdict.VERIFIED
        return Evidence(verdict, "exact", expression="0", scope=Scope(scope), assumptions=("d_k even",))

    certs = [
        Certificate(
            id=f"psa.saved_{scope.replace('-', '_')}",
            claim=Claim("psa", "Thm 38 (i)", "shears are symplectic", Provenance.VERBATIM, ledger=("Thm 38 (i)",)),
            method=Method.SYMBOLIC,
            expected=Verdict.PROVED if scope != "instance" else Verdict.VERIFIED,
            check=exact,
            params={"scope": scope},
            mutant=Mutant("none", {}),
        )
        for scope in ("general", "stated-range", "instance")
    ]
    ctx = Context()
    selection = {"paper": "psa", "pattern": None, "tag": None, "tier": "quick", "negative_controls": False}
    run = tmp_path / "run.json"
    run.write_text(dump_json(report_json(run_all(certs, ctx), ctx, [], selection)))
    out = tmp_path / "html"
    script = (
        "import sys; from attncert.certificates.frontends.cli import main; "
        f"code = main(['report', '--from', {str(run)!r}, '--out', {str(out)!r}, '--no-figures']); "
        "assert not [m for m in sys.modules if m.startswith(('sympy', 'attncert.certificates.psa'))]; sys.exit(code)"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    page = (out / "index.html").read_text(encoding="utf-8")
    for label in ("general", "stated range", "instance", "d_k even", "proved in general", 'id="ledger"'):
        assert label in page
    saved = json.loads(run.read_text())
    assert saved["results"][0]["scope"] == "general" and saved["results"][0]["assumptions"] == ["d_k even"]
    assert saved["summary"]["scopes"] == {"PROVED general": 1, "PROVED stated range": 1, "VERIFIED instance": 1}
