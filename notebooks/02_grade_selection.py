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
# # 02 · From a profile file to a certified grading
#
# The GLLM paper's clipped grade-selection program: minimise
# Lambda(g) = (sum alpha_j g_j^-2)(sum tau_j g_j^2) over multipliers g_j in [1, C].

# %%
from pathlib import Path

import numpy as np

from attncert.certificates.frontends.grades_output import TABLE3_ROWS, table3_values
from attncert.certificates.frontends.grades_report import grade_report
from attncert.certificates.frontends.profiles import load_profiles

examples = Path("examples/profiles") if Path("examples/profiles").is_dir() else Path("../examples/profiles")
report = grade_report(load_profiles(examples / "coord1024.json"), cross_check=True)
print(
    f"BC = {report.bc:.4f}, Lambda* = {report.bc**2:.4f}, Lambda*_C = {report.optimum.value:.4f}, "
    f"gain = {report.optimum.gain:.3f}x"
)
print("cross-checks (relative):", report.cross_checks)
for c in report.candidates:
    print(f"{c.name:10s} certificate {c.certificate:+8.3f}  Lambda(q) = {c.gain_value:.4f}  in Q+: {c.in_admissible_cone}")

# %% [markdown]
# The `too_steep` candidate has a positive first-order certificate but Lambda(q) > 1: the
# certificate certifies a direction, not a grading at its scale (gllm.md E1). Always look at the
# exact Lambda(q).
#
# ## Table 3

# %%
for nu, mu in TABLE3_ROWS:
    r = table3_values(nu, mu)
    print(
        f"({nu}, {mu}): Lambda* = {r['lambda_star']:.5f}  Lambda*_C = {r['lambda_star_c']:.5f}  "
        f"gain = {r['gain']:.3f}  g*_C = {np.round(r['g'], 4)}"
    )

# %% [markdown]
# ## Gain against the clip C

# %%
clips = np.linspace(1, 6, 11)
for nu, mu in TABLE3_ROWS:
    gains = [table3_values(nu, mu, float(C))["gain"] for C in clips]
    print(f"({nu}, {mu}):", " ".join(f"{g:.2f}" for g in gains))
