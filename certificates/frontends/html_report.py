"""`attncert report --out DIR`: one self-contained HTML file plus its PNG figures.

The page is rendered from a verify report (the JSON of ``attncert verify --json``, so
``attncert report --from RUN.json`` re-renders a saved run): the certificate table (filterable by
paper and verdict, each row expandable to its statement, method and evidence, each exact verdict
with its scope), the claims ledger (per claim and part: the certificates, their verdicts and
scopes, what the run established), and the grade-selection and phase-transition figures. No
external assets: the CSS and the filter script are inline.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from pathlib import Path
from typing import Any

from attncert.certificates.engine.ledger import LedgerEntry
from attncert.certificates.engine.model import Scope
from attncert.certificates.frontends.common import all_or_nothing, write_atomically
from attncert.certificates.frontends.verify_output import SCOPE_LABELS, coverer_text

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem;color:#222}
table{border-collapse:collapse;width:100%;font-size:0.9rem}
th,td{border-bottom:1px solid #ddd;padding:0.3rem 0.5rem;text-align:left;vertical-align:top}
th{background:#f4f4f4}
.v-PROVED{color:#0a7d24;font-weight:bold}.v-VERIFIED{color:#2b8a3e}.v-REPRODUCED{color:#1c7ed6}
.v-REFUTED{color:#c92a2a;font-weight:bold}.v-MISMATCH{color:#ae3ec9}.v-ERROR{background:#c92a2a;color:#fff}
details pre{white-space:pre-wrap;background:#f8f8f8;padding:0.5rem;max-height:20rem;overflow:auto}
.filters{margin:1rem 0}.filters label{margin-right:1.5rem}
.scope{font-weight:normal;font-size:0.8rem;color:#555}
figure{display:inline-block;margin:0.5rem}figure img{max-width:420px;border:1px solid #ddd}
"""

_SCRIPT = """
function applyFilters(){
  const p=document.getElementById('paper').value, v=document.getElementById('verdict').value;
  let shown=0;
  document.querySelectorAll('tr.cert').forEach(r=>{
    const ok=(p==='all'||r.dataset.paper===p)&&(v==='all'||r.dataset.verdict===v);
    r.style.display=ok?'':'none'; if(ok) shown++;
  });
  document.getElementById('shown').textContent=shown;
}
document.getElementById('paper').addEventListener('change',applyFilters);
document.getElementById('verdict').addEventListener('change',applyFilters);
applyFilters();
"""


def _options(values: list[str]) -> str:
    return "".join(f'<option value="{html.escape(v)}">{html.escape(v)}</option>' for v in ["all", *values])


def _certificate_row(r: dict[str, Any]) -> str:
    record = json.dumps(r["evidence"], indent=2, default=str)
    unexpected = "" if r["as_expected"] else f" (expected {r['expected']})"
    scope = f"<br><span class='scope'>{html.escape(SCOPE_LABELS[Scope(r['scope'])])}</span>" if r["scope"] else ""
    assumptions = f"<p><b>Assumptions.</b> {html.escape('; '.join(r['assumptions']))}</p>" if r["assumptions"] else ""
    return (
        f'<tr class="cert" data-paper="{r["paper"]}" data-verdict="{r["verdict"]}" id="{html.escape(r["id"])}">'
        f"<td><code>{html.escape(r['id'])}</code></td><td>{html.escape(r['claim']['label'])}</td>"
        f"<td>{r['method']}</td><td class='v-{r['verdict']}'>{r['verdict']}{unexpected}{scope}</td>"
        f"<td><details><summary>{html.escape(r['evidence']['summary'])}</summary>"
        f"<p><b>Statement.</b> {html.escape(r['claim']['statement'])}</p>{assumptions}"
        f"<p><b>Provenance</b> {html.escape(r['claim']['provenance'])}; <b>method</b> {r['method']}; <b>tier</b> {r['tier']}; "
        f"<b>negative control</b>: {html.escape(r['mutant'])}</p>"
        f"<pre>{html.escape(record)}</pre></details></td>"
        f"<td>{r['evidence']['duration_s']:.2f}s</td></tr>"
    )


def _ledger_rows(ledger: list[LedgerEntry]) -> str:
    rows = []
    for e in ledger:
        if e.reason is not None:
            continue
        for i, part in enumerate(e.rows):
            covering = e.covering(part)
            cells = "<br>".join(html.escape(coverer_text(c)) for c in covering) or "<i>not yet certified</i>"
            head = f"<td>{e.paper}</td><td>{html.escape(e.key)}</td>" if i == 0 else "<td></td><td></td>"
            rows.append(
                f'<tr class="claim">{head}<td>{html.escape(part or "")}</td><td>{cells}</td>'
                f"<td>{html.escape(e.standing(part) or '')}</td></tr>"
            )
    return "".join(rows)


def render(report: dict[str, Any], ledger: list[LedgerEntry], figures: list[str]) -> str:
    """The page for a verify report (``verify_output.report_json``) and the ledger of its run."""
    results = report["results"]
    papers = sorted({r["paper"] for r in results})
    verdicts = sorted({r["verdict"] for r in results})
    counts = Counter(r["verdict"] for r in results)
    env, selection, nc = report["environment"], report["selection"], report["summary"]["negative_controls"]
    controls = f"{nc['killed']}/{nc['run']} killed" if selection.get("negative_controls") else "not run"
    coverage = []
    for paper in sorted({e.paper for e in ledger}):
        entries = [e for e in ledger if e.paper == paper]
        tally = Counter(e.status for e in entries)
        coverage.append(
            f"<tr><td>{paper}</td><td>{len(entries)}</td><td>{tally.get('certified', 0)}</td>"
            f"<td>{tally.get('partly certified', 0)}</td><td>{tally.get('OUT_OF_SCOPE', 0)}</td>"
            f"<td>{tally.get('not yet certified', 0)}</td></tr>"
        )
    standings = Counter(e.claim_standing for e in ledger if e.claim_standing is not None)
    oos = "".join(
        f"<tr><td>{e.paper}</td><td>{html.escape(e.key)}</td><td>{html.escape(e.reason or '')}</td></tr>"
        for e in ledger
        if e.reason
    )
    figs = "".join(
        f'<figure><img src="{html.escape(f)}" alt="{html.escape(f)}"><figcaption>{html.escape(f)}</figcaption></figure>'
        for f in figures
    )
    summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>attncert report</title><style>{_STYLE}</style></head>
<body>
<h1>attncert report</h1>
<p>{len(results)} certificates ({summary}); seed {env["seed"]}, backend {env["backend"]}, tier {selection.get("tier")}.
Negative controls: {controls}. Run {html.escape(str(report.get("created", "")))}.</p>
<h2>Certificates</h2>
<div class="filters"><label>paper <select id="paper">{_options(papers)}</select></label>
<label>verdict <select id="verdict">{_options(verdicts)}</select></label>
<span><span id="shown">{len(results)}</span> shown</span></div>
<table id="certificates"><thead><tr><th>id</th><th>claim</th><th>method</th><th>verdict (scope)</th><th>evidence</th>
<th>time</th></tr></thead><tbody>{"".join(_certificate_row(r) for r in results)}</tbody></table>
<h2>Claims ledger coverage</h2>
<table id="coverage"><thead><tr><th>paper</th><th>catalogued</th><th>certified</th><th>partly certified</th>
<th>out of scope</th><th>not yet certified</th></tr></thead><tbody>{"".join(coverage)}</tbody></table>
<p>Certified claims by what this run established for their weakest part:
{html.escape(", ".join(f"{k} {v}" for k, v in standings.items()) or "none")}.</p>
<h3>Claims and their parts</h3>
<table id="ledger"><thead><tr><th>paper</th><th>claim</th><th>part</th><th>certificates (verdict, scope)</th>
<th>established</th></tr></thead><tbody>{_ledger_rows(ledger)}</tbody></table>
<h3>Out of scope (never counted as a pass)</h3>
<table><thead><tr><th>paper</th><th>claim</th><th>reason</th></tr></thead><tbody>{oos}</tbody></table>
<h2>Figures</h2>{figs}
<script>{_SCRIPT}</script>
</body></html>
"""


def grade_figures(out: Path) -> list[str]:
    """Token gain 1/Lambda*_C against the clip C for the four Table 3 rows (GLLM): the file names written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from attncert.certificates.frontends.grades_output import TABLE3_ROWS, table3_values
    from attncert.solvers.grades import solve_clipped

    clips = np.linspace(1.0, 6.0, 41)
    fig, ax = plt.subplots(figsize=(5.2, 3.8))
    for nu, mu in TABLE3_ROWS:
        row = table3_values(nu, mu)  # the exact geometric profiles, built once per row
        gains = [solve_clipped(row["a"], row["s"], float(C)).gain for C in clips]
        ax.plot(clips, gains, label=f"(nu, mu) = ({nu}, {mu})")
    ax.axvline(2.0, color="k", lw=0.8, ls=":")
    ax.set(xlabel="clip C", ylabel="token gain 1/Lambda*_C", title="GLLM grade selection (L = 4)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "gllm_gain_vs_clip.png", dpi=100)
    plt.close(fig)
    return ["gllm_gain_vs_clip.png"]


def phase_figures(out: Path) -> list[str]:
    """Fig. 7 (a)-(c) by quadrature (the paper's protocol; no Monte Carlo): the file names written."""
    from attncert.certificates.frontends import phase_output
    from attncert.solvers.backend import get_backend
    from attncert.solvers.phase import FIG7, run_sweep, summarise
    from attncert.solvers.score_model import ScoreModel

    sweep = run_sweep(FIG7, ScoreModel(), engine="quad", backend=get_backend("numpy"), seed=0)
    stats = summarise(sweep)
    return [p.name for p in phase_output.figures(out, sweep, stats, stats.c_hat)]


def write_report(out: Path, report: dict[str, Any], ledger: list[LedgerEntry], *, figures: bool) -> Path:
    """Write ``index.html`` for a verify report (and, with ``figures``, its PNG figures) into ``out``.

    The two groups of figures are drawn in two forked processes at once: each spends most of its
    time importing matplotlib and SciPy or SymPy and computing its curves."""
    with all_or_nothing(out):  # a failure (or Ctrl-C) leaves no new file or folder behind
        return _write(out, report, ledger, figures=figures)


def _write(out: Path, report: dict[str, Any], ledger: list[LedgerEntry], *, figures: bool) -> Path:
    names: list[str] = []
    if figures:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("fork")) as pool:
            jobs = [pool.submit(draw, out) for draw in (grade_figures, phase_figures)]
            for job in jobs:
                names += job.result()
    page = out / "index.html"
    write_atomically(page, render(report, ledger, names))
    return page
