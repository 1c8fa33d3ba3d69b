"""The printed numbers of the PSA paper's appendix tables that the table certificates regenerate,
copied as strings from the dump (``../shared/papers/003_9316570ef2916e86.txt``), in one place.

Strings keep the printed digits: the rounding rule of a regenerated value, and the rounding box of
an input, are read from them. Truncated tables hold the rows the dump shows (psa.md preface).
"""

from __future__ import annotations

# Table 9: accuracy lost to gamma-ablation per depth N (rows: global, first block, first - global).
TABLE9_DEPTHS = (2, 4, 5, 6, 7, 8, 12, 16)
TABLE9 = {
    "global": ("0.861", "0.880", "0.885", "0.888", "0.888", "0.889", "0.891", "0.895"),
    "first": ("0.856", "0.874", "0.878", "0.879", "0.878", "0.878", "0.849", "0.805"),
    "first - global": ("-0.005", "-0.006", "-0.007", "-0.009", "-0.010", "-0.011", "-0.042", "-0.090"),
}

# Table 16 (beta = 0 row, chain lengths L = 4..20) and Table 17's headline numbers.
TABLE16_BETA0 = ("94.0", "86.5", "49.3", "12.1", "5.1")
TABLE17 = {"beta0 mean": "49.4", "r": "0.507", "p": "3.47e-11", "R2": "0.257"}
#: Table 16's design: 10 betas x 5 chain lengths x 3 seeds (Table 16 caption, Fig. 19).
TABLE17_N = 10 * 5 * 3

# Table 22 / Fig. 3: single-layer recovery, V = 64 alphabet.
TABLE22 = {"baseline": "1.2", "peak": "83.4", "gain": "82.2", "chance": "1.56", "x chance": "53"}
FIG3 = {"psa": "69.1", "std": "1.6", "gain": "67.5"}  # Table 51 means and the Fig. 3 annotation

# Table 30 (v7 S2, L = 30): observed optimum per depth; Fig. 27's fit 1.88/N^0.11, R^2 = 0.112.
TABLE30 = ((1, "1.60"), (2, "1.60"), (3, "2.40"), (4, "1.80"), (6, "1.50"), (8, "1.00"))
FIG27 = {"gamma0": "1.88", "alpha": "0.11", "R2": "0.112"}

# Table 31 (v7 S3): SS ratio |p_q|/|q^rot| at gamma = 0, mean and s.d. over 300 probes.
TABLE31_GAMMA0 = {"mean": "1.4257", "sd": "0.0217"}

# Table 33: (gamma, delta_emp, Delta_symp_th, ratio).
TABLE33 = (
    ("0.6", "3.22e-4", "5.77e-2", "0.0056"),
    ("1.2", "8.85e-4", "1.13e-1", "0.0078"),
    ("1.8", "1.00e-3", "1.42e-1", "0.0071"),
    ("2.4", "9.26e-4", "1.65e-1", "0.0056"),
    ("3.0", "1.45e-3", "2.44e-1", "0.0060"),
)

# Table 35: (gamma, d_s_post, d_ns_post, HSF post, d_s_pre, d_ns_pre, HSF pre).
TABLE35 = (
    ("0.6", "3.22e-4", "1.38e-3", "4.2896", "0.3528", "0.5206", "1.4758"),
    ("1.2", "8.85e-4", "2.91e-3", "3.2906", "0.6942", "4.808", "6.9255"),
    ("1.8", "1.00e-3", "2.29e-3", "2.2821", "0.7582", "2.674", "3.5262"),
    ("2.4", "9.26e-4", "1.59e-3", "1.7184", "0.8714", "1.593", "1.8284"),
    ("3.0", "1.45e-3", "1.73e-3", "1.1930", "1.634", "1.629", "0.9967"),
)

# Table 44 (v9 C6): (gamma, observed Nyquist, compression = observed / theory).
TABLE44 = (
    ("0.4", "1.8704", "0.5773"),
    ("0.6", "2.2682", "0.4686"),
    ("0.8", "2.5167", "0.3723"),
    ("1.0", "2.6563", "0.2951"),
    ("1.2", "2.7735", "0.2399"),
)

# Pre-softmax Bode r printed for gamma > 0 (Tables 36, 41, 42) and Table 5's range.
PRE_SOFTMAX_R = {
    "Table 36": ("0.9982", "0.9987", "0.9991", "0.9991"),
    "Table 41": ("0.9982", "0.9987", "0.9991", "0.9990", "0.9991"),
    "Table 42": ("0.9982", "0.9987", "0.9991", "0.9990"),
}
TABLE5_PRE_SOFTMAX_RANGE = ("0.895", "0.9966")

# Table 62 (G sweep; the dump shows 6 of 20 rows): (theta, degrees, peak, baseline, gain, noise).
TABLE62_GRID = ("0.02", "pi", 20)  # Table 61: 20 log-spaced points from 0.02 to pi
TABLE62 = (
    ("0.0200", "1.1", "0.778", "0.447", "+0.331", "0.0200"),
    ("0.0261", "1.5", "0.776", "0.446", "+0.330", "0.0261"),
    ("0.0341", "2.0", "0.771", "0.445", "+0.326", "0.0341"),
    ("0.0444", "2.5", "0.769", "0.447", "+0.321", "0.0444"),
    ("0.0580", "3.3", "0.761", "0.451", "+0.310", "0.0580"),
    ("0.0757", "4.3", "0.747", "0.455", "+0.292", "0.0757"),
)
#: Fig. 6(b) / Fig. 53(C): Pearson r of gain against noise over the 20 centre frequencies.
FIG53 = {"r": "-0.679", "n": 20, "p": "9.9e-4"}

# Table 64 (H, d_k = 32): (family, theta_min, theta_max, range ratio).
TABLE64 = {
    "single": ("0.100000", "0.100000", "1.0"),
    "bandpass": ("0.080000", "0.120000", "1.5"),
    "multi": ("0.000178", "1.000000", "5623.4"),
}
TABLE64_BANDPASS = ("0.1", "0.2")  # centre and relative width b (Fig. 56(B))

# Table 65: per family, accuracies (%) at gamma = 0, 0.3, 0.5, 0.7, 1.0 and the printed Delta.
TABLE65 = {
    "single": (("11.1", "44.5", "72.1", "82.7", "86.8"), ("+33.4", "+61.0", "+71.6", "+75.7")),
    "bandpass": (("10.8", "43.8", "72.2", "82.3", "87.5"), ("+33.0", "+61.4", "+71.5", "+76.7")),
    "multi": (("11.6", "66.6", "89.7", "94.7", "96.2"), ("+55.1", "+78.2", "+83.2", "+84.7")),
}

# Tables 71-74 (sweeps, % accuracy) as (difficulty, theta) -> row over gamma = 0, 0.3, 0.5, 0.7, 1.0.
COT_SWEEPS = {
    "Variable Tracking": {
        ("Easy", "0.03"): ("94.4", "96.3", "97.9", "96.5", "98.0"),
        ("Easy", "0.30"): ("93.9", "94.4", "95.0", "94.6", "94.7"),
        ("Medium", "0.03"): ("82.4", "88.7", "88.8", "88.8", "89.8"),
        ("Medium", "0.30"): ("81.1", "81.2", "81.5", "79.8", "80.7"),
        ("Hard", "0.03"): ("73.7", "75.2", "80.9", "74.0", "80.5"),
        ("Hard", "0.30"): ("65.2", "70.1", "71.4", "68.8", "67.7"),
    },
    "Multi-Hop w/ Negations": {
        ("Easy", "0.03"): ("52.4", "52.2", "52.3", "52.0", "52.5"),
        ("Easy", "0.30"): ("52.7", "52.1", "52.1", "52.2", "52.9"),
        ("Medium", "0.03"): ("53.1", "52.8", "53.0", "53.0", "53.2"),
        ("Medium", "0.30"): ("52.9", "54.3", "52.2", "52.6", "53.0"),
    },
    "Arithmetic CoT": {
        ("Easy", "0.03"): ("100.0", "100.0", "100.0", "100.0", "99.7"),
        ("Easy", "0.30"): ("90.6", "78.4", "70.4", "54.7", "62.3"),
        ("Medium", "0.03"): ("85.4", "86.1", "85.2", "97.4", "80.1"),
        ("Medium", "0.30"): ("70.6", "69.5", "81.7", "58.0", "22.0"),
        ("Hard", "0.03"): ("12.8", "73.4", "70.2", "28.0", "38.7"),
        ("Hard", "0.30"): ("56.8", "49.4", "30.6", "46.6", "25.0"),
    },
    "Global Counting": {
        ("Easy", "0.03"): ("31.7", "31.6", "31.6", "31.8", "31.8"),
        ("Easy", "0.30"): ("31.7", "31.4", "31.6", "32.0", "31.6"),
        ("Medium", "0.03"): ("25.3", "24.8", "24.8", "25.1", "25.2"),
        ("Medium", "0.30"): ("25.4", "24.9", "24.7", "25.4", "25.4"),
        ("Hard", "0.03"): ("20.4", "20.8", "20.7", "20.5", "20.6"),
        ("Hard", "0.30"): ("20.7", "21.0", "20.7", "20.8", "20.5"),
    },
}
#: Table 75 ("medium difficulty, theta = 0.03"): task -> (baseline %, peak %, relative gain %).
TABLE75 = {
    "Variable Tracking": ("82.4", "98.0", "+19"),
    "Multi-Hop w/ Negations": ("53.1", "53.2", "+0"),
    "Arithmetic CoT": ("85.4", "100.0", "+17"),
    "Global Counting": ("25.3", "31.8", "+1"),
}
#: Tables 90 and 121, row "A20 Variable Tracking": peak gain in the best-case cell.
TABLE90_VT_PEAK_GAIN = "+0.156"

# Table 77 (Natural Induction, five-seed means): theta -> accuracies at gamma = 0, .3, .5, .7, .9, 1.2.
TABLE77 = {
    "0.03": ("0.127", "0.243", "0.578", "0.796", "0.870", "0.906"),
    "0.10": ("0.179", "0.249", "0.533", "0.769", "0.858", "0.923"),
    "0.30": ("0.281", "0.348", "0.498", "0.651", "0.760", "0.851"),
    "1.00": ("0.178", "0.163", "0.160", "0.152", "0.161", "0.158"),
}
FIG61_NATURAL_INDUCTION_GAIN = "+0.74"

# Tables 81-83 (multi-task grid): theta -> accuracies at gamma = 0, .3, .5, .7, .9, 1.2, 1.8.
MULTITASK_GAMMAS = ("0", "0.3", "0.5", "0.7", "0.9", "1.2", "1.8")
MULTITASK = {
    "Induction": {
        "0.03": ("0.152", "0.243", "0.397", "0.577", "0.701", "0.787", "0.717"),
        "0.10": ("0.255", "0.328", "0.479", "0.653", "0.770", "0.846", "0.801"),
        "0.30": ("0.354", "0.438", "0.531", "0.611", "0.648", "0.640", "0.522"),
        "1.00": ("0.340", "0.368", "0.409", "0.442", "0.454", "0.453", "0.444"),
    },
    "Trajectory": {
        "0.03": ("0.684", "0.697", "0.701", "0.703", "0.705", "0.708", "0.697"),
        "0.10": ("0.688", "0.697", "0.704", "0.708", "0.709", "0.709", "0.703"),
        "0.30": ("0.689", "0.701", "0.712", "0.717", "0.718", "0.718", "0.704"),
        "1.00": ("0.704", "0.725", "0.734", "0.740", "0.743", "0.744", "0.735"),
    },
    "Dyck": {
        "0.03": ("0.871", "0.912", "0.905", "0.900", "0.896", "0.885", "0.826"),
        "0.10": ("0.886", "0.917", "0.910", "0.898", "0.904", "0.890", "0.839"),
        "0.30": ("0.905", "0.913", "0.920", "0.915", "0.904", "0.915", "0.843"),
        "1.00": ("0.930", "0.942", "0.946", "0.946", "0.932", "0.917", "0.877"),
    },
}
#: Table 79: task -> (baseline, peak, peak gamma, peak theta, peak gain).
TABLE79 = {
    "Induction": ("0.275", "0.846", "1.2", "0.10", "+0.591"),
    "Trajectory": ("0.691", "0.744", "1.2", "1.00", "+0.040"),
    "Dyck": ("0.898", "0.946", "0.7", "1.00", "+0.016"),
}
#: Table 80: every Majority cell is 1.000 (4 thetas x 7 gammas), so its gains are exactly 0.
MAJORITY_CELLS_WITH_GAMMA_POSITIVE = 4 * 6
TABLE84 = {"t": "-2.910", "p": "4.51e-3", "non-majority mean gain": "+0.107"}

# Table 85 (difficulty grid) and Table 86 (the 6 rows the dump shows).
TABLE85_VOCABS = (64, 128, 256, 512)
TABLE85 = {
    4: ("0.577", "0.624", "0.667", "0.707"),
    8: ("0.675", "0.729", "0.779", "0.826"),
    12: ("0.729", "0.787", "0.842", "0.893"),
    16: ("0.766", "0.827", "0.885", "0.938"),
    20: ("0.794", "0.858", "0.917", "0.973"),
    24: ("0.816", "0.882", "0.943", "1.000"),
}
#: (l, V, difficulty, baseline, peak, gain)
TABLE86 = (
    (4, 64, "0.577", "0.651", "1.000", "+0.349"),
    (4, 128, "0.624", "0.703", "0.994", "+0.291"),
    (4, 256, "0.667", "0.653", "0.911", "+0.258"),
    (4, 512, "0.707", "0.590", "0.748", "+0.158"),
    (8, 64, "0.675", "0.482", "0.999", "+0.517"),
    (8, 128, "0.729", "0.527", "0.875", "+0.348"),
)

# Table 88 (Pearson r and p over n = 120 task-level points) and Table 89's tests.
TABLE88_N = 120  # 24 (l, V) cells x 5 (psa.md §3.6)
TABLE88 = (("noise", "-0.3719", "2.88e-5"), ("difficulty", "-0.2470", "6.54e-3"), ("baseline", "-0.0164", "0.859"))
TABLE89 = {"r": "-0.372", "p_r": "2.9e-5", "F": "12.04", "p_F": "7.4e-4"}
TABLE89_F_DF = (1, 112)  # not printed: the degrees of freedom psa.md §3.6 reads the p-value with

# Tables 91-104 (ICL): metric -> (baseline, momentum, printed Delta).
ICL_TABLES = {
    "Table 91": {
        "L_new": ("8.0861", "8.0713", "-0.0147"),
        "L_second": ("3.4099", "3.4966", "+0.0867"),
        "L_rep": ("2.1103", "2.2220", "+0.1117"),
        "gap": ("4.6761", "4.5747", "-0.1014"),
    },
    "Table 93": {
        "L_new": ("7.3450", "7.3477", "+0.0026"),
        "L_second": ("2.1191", "2.2813", "+0.1622"),
        "L_rep": ("1.6274", "1.7687", "+0.1413"),
        "gap": ("5.2259", "5.0664", "-0.1595"),
    },
    "Table 95": {
        "L_new": ("7.1529", "7.1458", "-0.0071"),
        "L_second": ("3.4463", "3.9337", "+0.4874"),
        "L_rep": ("1.6496", "2.1261", "+0.4765"),
        "gap": ("3.7066", "3.2121", "-0.4946"),
    },
    "Table 98": {
        "L_new": ("7.0849", "7.0803", "-0.0046"),
        "L_second": ("3.0544", "2.8714", "-0.1830"),
        "L_rep": ("1.2785", "1.2262", "-0.0523"),
        "gap": ("4.0305", "4.2089", "+0.1784"),
    },
    "Table 101": {
        "L_new": ("6.9860", "7.0202", "+0.0342"),
        "L_second": ("2.3598", "1.2309", "-1.1289"),
        "L_rep": ("1.7451", "0.8288", "-0.9163"),
        "gap": ("4.6262", "5.7893", "+1.1632"),
    },
}
#: Hypothesis tables: source table -> (H1 |Delta L_new|/L_new %, H2 Delta L_rep/L_rep %).
ICL_HYPOTHESES = {
    "Table 92": ("Table 91", "0.2", "+5.3"),
    "Table 94": ("Table 93", "0.0", "+8.7"),
    "Table 96": ("Table 95", "0.1", "+28.9"),
    "Table 99": ("Table 98", "0.1", "-4.1"),
    "Table 102": ("Table 101", "0.5", "-52.5"),
}
TABLE100 = {"no anchor": ("Table 95", "+29"), "anchored": ("Table 98", "-4.1")}
#: Per-depth losses (Tables 97, 103; first 6 depths): (baseline, momentum, printed B - M).
PER_DEPTH = {
    "Table 97": (
        ("7.1529", "7.1458", "+0.0071"),
        ("3.4463", "3.9337", "-0.4874"),
        ("1.7209", "2.3737", "-0.6528"),
        ("1.4872", "2.0387", "-0.5515"),
        ("1.3765", "1.8821", "-0.5056"),
        ("1.3035", "1.7631", "-0.4596"),
    ),
    "Table 103": (
        ("6.9860", "7.0202", "-0.0342"),
        ("2.3598", "1.2309", "+1.1289"),
        ("1.5645", "0.6515", "+0.9131"),
        ("1.4266", "0.5334", "+0.8931"),
        ("1.4771", "0.5769", "+0.9002"),
        ("1.2770", "0.5402", "+0.7368"),
    ),
}
#: Table 104 (notebook A, embedding-level momentum): no L_second row is printed.
TABLE104 = {
    "L_new": ("7.1026", "7.2029", "+0.1003"),
    "L_rep": ("1.1446", "1.1910", "+0.0464"),
    "gap": ("5.9580", "6.0119", "+0.0539"),
    "improvement %": "-4.1",
}

# Table 105 (layer-0 spectral biopsy) and Table 106's layer-0 row.
TABLE105 = {"baseline": ("98.98", "38.07", "2.60"), "momentum": ("95.93", "31.81", "3.015")}
TABLE106_LAYER0 = {"baseline": ("96.46", "37.24"), "momentum": ("98.99", "31.99")}

# Table 112 (91.3M, d_k = 128): steps to 50% per seed (None: not emerged) and the printed mean.
TABLE112 = {
    "0.00": ((2900, 2500, None), "2700"),
    "0.05": ((None, 1750), "1750"),
    "0.10": ((None, 1550), "1550"),
    "0.40": ((1000, 2200, 2150), "1783"),
    "0.50": ((1000, 1000, 2400), "1467"),
}

# Tables 115 / 119: final (fluency, logic) losses; Tables 116 / 120: hypothesis margins (%).
FINAL_LOSSES = {
    "R1": {"Goliath": ("10.7745", "0.6935"), "David": ("10.8214", "0.6933"), "Goliath Jr": ("10.7863", "0.6934")},
    "R2": {"Goliath": ("7.7732", "0.6932"), "David": ("8.1538", "0.6933"), "Goliath Jr": ("7.9205", "0.6934")},
}
#: (run, hypothesis, claimed winner, claimed loser, loss index 0 fluency / 1 logic, printed margin %)
MARGINS = (
    ("R1", "H1", "David", "Goliath", 0, "-0.4"),
    ("R1", "H2", "Goliath", "David", 1, "-0.0"),
    ("R1", "H3", "David", "Goliath Jr", 0, "-0.3"),
    ("R2", "H1", "David", "Goliath", 0, "-4.9"),
    ("R2", "H2", "Goliath", "David", 1, "+0.0"),
    ("R2", "H3", "David", "Goliath Jr", 0, "-2.9"),
)
CHANCE_LOSSES = {"ln 50257": (50257, "10.82"), "ln 2": (2, "0.6931")}  # Fig. 86

# Parameter counts: (model, layers, width, vocab, tied, printed millions).
PARAMETER_COUNTS = (
    ("Goliath (R1, Table 114)", 24, 1024, 50257, False, "406"),
    ("David (R1, Table 114)", 12, 768, 50257, False, "163"),
    ("Goliath (R2, Table 118)", 24, 1024, 8192, False, "319"),
    ("David (R2, Table 118)", 12, 768, 8192, False, "98"),
    ("A31 model (Table 110)", 12, 768, 8192, True, "91.7"),
    ("A31 model (Table 112)", 12, 768, 8192, True, "91.3"),
    ("N = 4 decoder (Fig. 3(b), Table 18)", 4, 128, 200, False, "0.842"),
    ("nano (Fig. 3(a), Table 21; tied assumed)", 1, 64, 64, True, "0.054"),
)

# Table 52 (v9 C14): observed per-band Coriolis error and obs/th (bands m = 0..5 of d_k = 16).
TABLE52 = (
    ("0.407971", "0.43"),
    ("0.041205", "0.13"),
    ("0.004453", "0.04"),
    ("0.000411", "0.01"),
    ("0.412654", "41.27"),
    ("0.042761", "13.52"),
)

# Fig. 4(a): key-only 0.949 outperforms the symmetric operator 0.811 by 13.8 pp.
FIG4 = {"key-only": "0.949", "symmetric": "0.811", "gap pp": "13.8"}
