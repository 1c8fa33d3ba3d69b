# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 01 · A tour of the certificate suite
#
# attncert checks the claims of three attention papers (PLGA, GLLM, PSA) one by one. Each
# certificate names its claim, provenance and method, and reaches a verdict with evidence. This
# notebook runs the quick tier, shows the verdicts per paper, lists the errata attncert found, and
# reads one certificate's evidence in full.

# %%
from collections import Counter

from attncert.certificates.engine.model import Context, Tier, Verdict
from attncert.certificates.engine.registry import select
from attncert.certificates.engine.runner import run_all

results = run_all(select(tier=Tier.QUICK), Context())
print(f"{len(results)} certificates, all as expected: {all(r.as_expected for r in results)}")
for paper in ("plga", "gllm", "psa"):
    counts = Counter(r.verdict.value for r in results if r.certificate.paper == paper)
    print(paper, dict(sorted(counts.items())))

# %% [markdown]
# ## The errata: where the papers are wrong
#
# A certificate whose expected verdict is REFUTED or MISMATCH records an error in the paper. Its
# negative control is the corrected claim, which the same check must then accept.

# %%
for r in results:
    if r.verdict in (Verdict.REFUTED, Verdict.MISMATCH):
        print(f"{r.verdict.value:9s} {r.certificate.id}\n          {r.outcome.evidence.summary}\n")

# %% [markdown]
# ## Reading evidence
#
# Evidence carries the measured and reference values, the rule or tolerance, and (for exact
# results) the SymPy expression that reduced to zero plus a numeric cross-check on random instances.

# %%
from attncert.certificates.frontends.verify_output import result_json  # noqa: E402

record = next(result_json(r) for r in results if r.certificate.id == "psa.transfer_function_magnitude")
for key in ("verdict", "method", "expected"):
    print(key, record[key])
print(record["evidence"]["summary"])
print("cross-check:", record["evidence"]["cross_check"])

# %% [markdown]
# ## Negative controls
#
# Every certificate can fail: its mutant (a wrong constant, a flipped sign, a perturbed operator)
# must not reach the expected verdict.

# %%
from attncert.certificates.engine.runner import run_one  # noqa: E402

for cid in ("psa.annealed_bound_saturates_at_8L", "gllm.optimum_is_squared_bhattacharyya"):
    cert = select(pattern=cid)[0]
    res = run_one(cert, Context(), negative_control=True)
    print(cid, "->", res.verdict.value, "| mutant:", cert.mutant.description, "->", res.negative_control.evidence.verdict.value)
