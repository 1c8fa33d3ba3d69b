"""The mutation harness (issue 11, section 1): the catalogue stays honest, and a fixed sample of
mutations across the three papers is killed by the quick tier.

The whole catalogue runs as a benchmark (``python benchmarks/mutation.py``, results in
``benchmarks/README.md``); here only the cheap checks and the CI subset run.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import sys
import tempfile
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load_benchmark(name: str, filename: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / filename)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


harness = _load_benchmark("attncert_mutation_harness", "mutation.py")
MUTATIONS = harness.load_mutations()

#: the CI subset: representative mutations of the three papers (constants, operators, exponents,
#: clip bounds, the RoPE twirl pair, L = ln(T - 1), score-model and solver code), each with the
#: quick-tier certificate that kills it in the full run (benchmarks/README.md)
CI_KILLERS = {
    "psa_crossover_factor": "psa.crossover_printed_values",
    "psa_L_is_ln_T_minus_1": "psa.crossover_printed_values",
    "psa_coriolis_sign": "psa.table39_coriolis_theory_column",
    "psa_int8_levels": "psa.table12_int8_rows",
    "psa_overhead_fraction": "psa.table11_overhead_values",
    "sm_argmax_factor": "psa.plateau_quadrature_matches_argmax_mc",
    "po_incremental_carry": "psa.incremental_decoding_equals_full_recompute",
    "gr_value_square": "gllm.clipped_solvers_agree",
    "gr_g_clip_bound": "gllm.table3_rows",
    "sp_attend_scale": "plga.plga_with_identity_operator_is_sdpa",
    "sp_decoder_scale": "plga.decoder_with_identity_operator_is_sdpa",
    "tp_twirl_constant_pair": "plga.twirl_printed_values",
}

#: public names of theory/ and solvers/ without a mutation, and why none is useful
EXEMPT = {
    "solvers/backend.py": {"BackendUnavailable": "an exception class, no behaviour"},
    "solvers/sweep.py": {"ExecutorUnavailable": "an exception class, no behaviour"},
    "solvers/phase.py": {
        "Sweep": "a data class, no behaviour",
        "PointSummary": "a data class, no behaviour",
        "Statistics": "a data class, no behaviour",
    },
    "solvers/score_quadrature.py": {"QuadratureResult": "a data class, no behaviour"},
}
EXEMPT["solvers/phase.py"]["Cancelled"] = "an exception class, no behaviour"

# Public functions whose mutations are not yet in the catalogue, each with why; benchmarks/README.md lists
# them as the harness's open gaps. A function added to theory/ or solvers/ without a mutation still fails.
KNOWN_GAPS: dict[str, dict[str, str]] = {}


def public_names(path: Path) -> set[str]:
    """Top-level public functions and classes of ``path`` and the public methods of its classes."""
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_"):
            names.add(node.name)
            if isinstance(node, ast.ClassDef):
                names |= {
                    f"{node.name}.{f.name}" for f in node.body if isinstance(f, ast.FunctionDef) and not f.name.startswith("_")
                }
    return names


@functools.cache
def _source(file: str) -> tuple[str, ast.Module]:
    """The text of ``file`` and its syntax tree, parsed once for all the mutations of that file."""
    text = (ROOT / file).read_text()
    return text, ast.parse(text)


def mutated_names(m) -> set[str]:
    """The top-level function or class (and method) whose source contains ``m``'s snippet."""
    text, tree = _source(m.file)
    line = text[: text.index(m.find)].count("\n") + 1
    out = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.lineno <= line <= node.end_lineno:
            out.add(node.name)
            if isinstance(node, ast.ClassDef):
                out |= {
                    f"{node.name}.{f.name}"
                    for f in node.body
                    if isinstance(f, ast.FunctionDef) and f.lineno <= line <= f.end_lineno
                }
    return out


def test_every_snippet_matches_the_source_exactly_once():
    assert harness.catalogue_problems(MUTATIONS) == []


def test_the_catalogue_is_large_and_spread_over_the_papers():
    assert len(MUTATIONS) >= 80
    for paper in harness.PAPERS:
        assert sum(paper in m.papers for m in MUTATIONS) >= 20, paper
    for m in MUTATIONS:
        if m.equivalent:
            assert len(m.equivalent) > 30, f"{m.name}: say why the mutation cannot change a result"


def test_the_harness_runs_every_mutation_guard_file():
    """Each set's guards live in a tests/test_*_mutation_guards.py that the harness must run against
    every mutant. The harness finds them on disk; a narrower pattern, or a per-paper list that swallowed
    a set's file, would let its mutants survive the harness while the suite still kills them."""
    run = {f for files in harness.TESTS.values() for f in files}
    on_disk = {f"tests/{p.name}" for p in (ROOT / "tests").glob("test_*_mutation_guards.py")}
    assert on_disk - run == set()


def test_every_public_function_of_theory_and_solvers_is_mutated():
    covered: dict[str, set[str]] = {}
    for m in MUTATIONS:
        covered.setdefault(m.file, set()).update(mutated_names(m))
    listed = [(f, n) for table in (EXEMPT, KNOWN_GAPS) for f, names in table.items() for n in names]
    stale = [f"{f}: {n}" for f, n in listed if n in covered.get(f, set())]
    assert not stale, f"exempt but mutated: {stale}"
    missing = []
    for path in sorted([*ROOT.glob("theory/*.py"), *ROOT.glob("solvers/*.py")]):
        rel = path.relative_to(ROOT).as_posix()
        exempt = set(EXEMPT.get(rel, {})) | set(KNOWN_GAPS.get(rel, {}))
        missing += [f"{rel}: {n}" for n in sorted(public_names(path) - covered.get(rel, set()) - exempt)]
    assert not missing, "public functions without a mutation (add one to benchmarks/mutations.toml):\n" + "\n".join(missing)


def test_mutants_live_in_a_scratch_copy_and_never_touch_the_source():
    m = next(m for m in MUTATIONS if m.name == "psa_crossover_factor")
    before = (ROOT / m.file).read_text()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        tree = harness.snapshot(ROOT, scratch)
        top = harness.import_root(tree, scratch, m)
        mutant = (top / "attncert" / m.file).read_text()
        assert mutant == before.replace(m.find, m.replace) != before
        assert (top / "attncert" / "certificates").resolve() == (tree / "certificates").resolve()
    assert (ROOT / m.file).read_text() == before


def test_a_snippet_that_no_longer_matches_stops_the_harness():
    m = next(m for m in MUTATIONS if m.name == "psa_crossover_factor")
    stale = harness.Mutation(m.name, m.file, m.find + " # gone", m.replace, m.papers)
    assert harness.catalogue_problems([stale]) == [
        f"{m.name}: snippet found 0 times in {m.file} (must be exactly once): {stale.find!r}"
    ]
    with pytest.raises(ValueError, match="does not match the source"):
        harness.run([stale])


def test_the_ci_subset_is_killed_by_the_quick_tier():
    """Each mutant of the subset makes its certificate leave the expected verdict, and that
    certificate reaches its verdict on the unmutated copy."""
    assert {m.split("_", 1)[0] for m in CI_KILLERS} >= {"psa", "sm", "po", "gr", "sp", "tp"}
    assert {c.split(".", 1)[0] for c in CI_KILLERS.values()} == set(harness.PAPERS)
    outcomes = harness.run_targeted(CI_KILLERS, jobs=2)
    survivors = [f"{name}: {CI_KILLERS[name]} {what}" for name, (killed, what) in outcomes.items() if not killed]
    assert not survivors, "\n".join(survivors)


def test_random_draw_is_reproducible_and_every_mutant_applies_and_parses():
    """benchmarks/mutation_random.py: the same seed gives the same set; each entry's snippet occurs
    once in its file and the mutated file still parses (so the harness judges behaviour, not syntax)."""
    gen = _load_benchmark("attncert_mutation_random", "mutation_random.py")
    first, again = gen.draw(7, 25, sorted(gen.PAPERS_OF)), gen.draw(7, 25, sorted(gen.PAPERS_OF))
    assert len(first) == 25 and first == again
    assert gen.draw(8, 25, sorted(gen.PAPERS_OF)) != first
    for site, entry in first:
        text = (ROOT / site.file).read_text()
        assert text.count(entry["find"]) == 1 and entry["find"] != entry["replace"]
        ast.parse(text.replace(entry["find"], entry["replace"]))


def test_random_draw_skips_messages_and_annotations():
    gen = _load_benchmark("attncert_mutation_random", "mutation_random.py")
    with tempfile.TemporaryDirectory() as tmp:
        source = [
            "def f(x: int = 2) -> float:",
            '    """Doc 3."""',
            "    if x < 0:",
            '        raise ValueError(f"bad {x + 1}")',
            "    return -x * 4",
        ]
        (Path(tmp) / "m.py").write_text("\n".join(source) + "\n")
        kinds = sorted((s.kind, s.text) for s in gen.sites("m.py", Path(tmp)))
    # the default 2, the 0, the comparison, the unary minus, the product and the 4; nothing in the raise
    assert kinds == [("arithmetic", "/"), ("comparison", "<="), ("number", "1"), ("number", "3"), ("number", "5"), ("unary", "")]


def test_replay_draws_each_live_mutant_once_and_never_an_equivalent_one(tmp_path):
    """benchmarks/mutation_random.py --replay: a mutant drawn by two sets is replayed once, under the first
    set's name; one that every set that drew it judged equivalent, or whose snippet no longer occurs once, is
    left out, and one judged equivalent by one set and not by another is replayed."""
    gen = _load_benchmark("attncert_mutation_random", "mutation_random.py")
    (tmp_path / "m.py").write_text("a = 1\nb = 2\nc = 3\nc = 3\n")

    def entry(name, find, replace, equivalent=None):
        lines = ["[[mutation]]", f'name = "{name}"', 'file = "m.py"', 'papers = ["gllm"]']
        lines += [f"find = '''{find}'''", f"replace = '''{replace}'''"]
        return "\n".join([*lines, *([f'equivalent = "{equivalent}"'] if equivalent else []), ""])

    one, two = tmp_path / "mutations_random.toml", tmp_path / "mutations_random2.toml"
    one.write_text(entry("x", "a = 1", "a = 2") + entry("y", "b = 2", "b = 3") + entry("z", "c = 3", "c = 4"))
    two.write_text(entry("x2", "a = 1", "a = 2") + entry("y2", "b = 2", "b = 3", "same") + entry("w", "b = 2", "b = 1"))
    three = tmp_path / "mutations_random3.toml"
    three.write_text(entry("v", "b = 2", "b = 5", "same") + entry("u", "a = 1", "a = 7", "same"))
    (tmp_path / "mutations_random4.toml").write_text(entry("v4", "b = 2", "b = 5"))
    live = gen.replayable([one, two, three], tmp_path)
    assert [(m["name"], m["replace"]) for m in live] == [("random_x", "a = 2"), ("random_y", "b = 3"), ("random2_w", "b = 1")]
    # judged equivalent by set 3 and not by set 4: replayed; set 3's other, equivalent in every set: left out
    both = gen.replayable([three, tmp_path / "mutations_random4.toml"], tmp_path)
    assert [m["name"] for m in both] == ["random3_v"]
    drawn = gen.draw_replay(3, 5, [one, two], tmp_path)
    assert sorted(m["name"] for m in drawn) == ["random2_w", "random_x", "random_y"]
    assert drawn == gen.draw_replay(3, 5, [one, two], tmp_path)
    assert gen.replayable([one, two], tmp_path, files=["other.py"]) == []
    text = gen.render_replay(3, drawn, len(live))
    assert [m["name"] for m in tomllib.loads(text)["mutation"]] == [m["name"] for m in drawn]


def test_undrawn_lists_every_site_no_set_drew_and_only_those(tmp_path):
    """benchmarks/mutation_random.py --undrawn: the complement of the earlier sets over the current sites, an
    equivalent one counting as drawn; a site whose snippet changed since its draw counts as undrawn."""
    gen = _load_benchmark("attncert_mutation_random", "mutation_random.py")
    (tmp_path / "theory").mkdir()
    (tmp_path / "theory" / "gllm.py").write_text("a = 1\nb = 2\nc = 3 + a\n")
    every = [gen.catalogue_entry(s, tmp_path) for s in gen.sites("theory/gllm.py", tmp_path)]
    assert [(e["find"], e["replace"]) for e in every] == [
        ("a = 1", "a = 2"),
        ("b = 2", "b = 3"),
        ("c = 3 + a", "c = 3 - a"),
        ("c = 3 + a", "c = 4 + a"),
    ]
    drawn = tmp_path / "mutations_random.toml"
    lines = ["[[mutation]]", 'name = "x"', 'file = "theory/gllm.py"', 'papers = ["gllm"]']
    drawn.write_text(
        "\n".join(
            [*lines, "find = '''a = 1'''", "replace = '''a = 2'''", *lines, "find = '''c = 3 - a'''", "replace = '''c = 3 + a'''"]
        )
        + "\n"
        + "\n".join([*lines, "find = '''b = 2'''", "replace = '''b = 3'''", 'equivalent = "unused"', ""])
    )
    left = gen.undrawn([drawn], ["theory/gllm.py"], tmp_path)
    assert [(e["find"], e["replace"]) for _, e in left] == [("c = 3 + a", "c = 4 + a"), ("c = 3 + a", "c = 3 - a")]
    text = gen.render(None, left, len(every))
    assert text.startswith("# Undrawn set: the 2 of the 4 mutation sites")
    assert [m["replace"] for m in tomllib.loads(text)["mutation"]] == ["c = 4 + a", "c = 3 - a"]
    with pytest.raises(SystemExit):
        gen.main(["--seed", "1", "--out", str(tmp_path / "o.toml"), "--undrawn", str(drawn)])
    with pytest.raises(SystemExit):
        gen.main(["--out", str(tmp_path / "o.toml")])


@pytest.mark.parametrize("text", ["\n@dataclass(frozen=True)", "\n\nx = 1\n", "a = 'b'", "x = '''y'''", 'say("\\n")\n    z'])
def test_catalogue_strings_survive_toml(text):
    """A snippet written by mutation_random.py reads back unchanged: a literal multi-line string would drop
    a newline right after its opening quotes (the undrawn set's first draw lost one and matched twice)."""
    gen = _load_benchmark("attncert_mutation_random", "mutation_random.py")
    assert tomllib.loads(f"s = {gen._toml_string(text)}\n")["s"] == text
