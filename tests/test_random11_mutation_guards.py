"""Guards found by the eleventh random mutation set (issue 11, benchmarks/mutations_random11.toml, seed
20261212): each test pins what a survivor of that set exposed, against an independent computation."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import sympy as sp

from attncert.solvers.grades import bracketed_root
from attncert.theory import psa


def test_fig58_filter_is_the_prop13_filter_with_the_sign_of_gamma_flipped():
    """psa.md §1.5 and erratum 5 (§5): Fig. 58(C) prints 1 + gamma (z^{-1} - 1), Prop 13's filter
    1 + gamma (1 - z^{-1}) with gamma -> -gamma, whose Nyquist gain is (1 - 2 gamma)^2. The
    erratum certificate only reads |H| on the unit circle, where z and z^{-1} are conjugate, so a
    printed form in z instead of z^{-1} went unseen; as a transfer function it is anticausal."""
    g, z = psa.gamma, psa.z
    printed = psa.fig58_transfer_function(g, z)
    assert sp.simplify(printed - psa.transfer_function(-g, z)) == 0
    assert sp.expand(printed.subs(z, -1) ** 2 - (1 - 2 * g) ** 2) == 0
    # causal: a polynomial in z^{-1} of degree one, with no positive power of z
    assert sp.Poly(sp.expand(printed.subs(z, 1 / sp.Symbol("u"))), sp.Symbol("u")).degree() == 1


@pytest.mark.parametrize(
    ("f", "root", "evaluations"),
    [(lambda x: x * x * x - 2, 2 ** (1 / 3), 15), (lambda x: 2 - (4 - x) * (4 - x) * (4 - x), 4 - 2 ** (1 / 3), 18)],
    ids=["convex", "concave"],
)
def test_bracketed_root_takes_the_illinois_number_of_steps(f, root, evaluations):
    """Illinois regula falsi halves the stale end's value; the iteration is deterministic, so its
    evaluation count on a cubic over [0, 4] is pinned (plain regula falsi: 158 and 161). Set 11
    divided by 3 instead: 15 and 15, 28 and 18; still a root, but not the documented method. The
    cubics use only multiplications, exactly rounded in IEEE arithmetic, so the count is the same on
    every platform (a libm's log or exp may differ in the last bit)."""
    calls = []

    def counted(x):
        calls.append(x)
        return f(x)

    assert bracketed_root(counted, 0.0, 4.0) == pytest.approx(root, rel=1e-14)
    assert len(calls) == evaluations


#: keyword arguments of Evidence and all_exact that only describe a result
_DISPLAY = frozenset({"summary", "proved", "details", "expression", "residual"})


def _display_only(tree: ast.AST, imported: set[str]) -> list[str]:
    """Locals of each function assigned from a call into theory/ or solvers/ whose every read sits in
    an f-string or a describing keyword: a value the check prints but never decides with."""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}

    def displayed(node: ast.AST) -> bool:
        while (node := parents.get(node)) is not None:
            if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.keyword) and node.arg in _DISPLAY):
                return True
        return False

    found = []
    for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
                continue
            root = node.value.func
            while isinstance(root, ast.Attribute):
                root = root.value
            if not (isinstance(root, ast.Name) and root.id in imported):
                continue
            for name in (t.id for t in node.targets if isinstance(t, ast.Name)):
                reads = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
                if all(displayed(r) for r in reads):
                    found.append(f"{fn.name}: {name} = {ast.unparse(node.value)[:60]}")
    return found


def test_no_certificate_computes_a_theory_value_only_to_print_it():
    """Set 11 found Lemma 4's window certificate printing the theory's m_sat while deciding z3
    polynomials written by hand beside it, so a wrong m_sat stayed PROVED. A value a check takes from
    theory/ or solvers/ must take part in the decision, not only in its summary."""
    found = {}
    for path in sorted((Path(__file__).resolve().parents[1] / "certificates").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(("attncert.theory", "attncert.solvers"))
            for alias in node.names
        }
        if hits := _display_only(tree, imported):
            found[path.name] = hits
    assert not found, found


def test_the_display_only_scan_sees_the_pattern_it_is_about():
    source = """
def check(ctx):
    m_sat = th.saturation_size(d, L, s0, sigma)
    used = th.window_top(d, L, s0)
    return all_exact([("w", used > 0)], proved=f"m_sat = {m_sat}", details={"top": used})
"""
    assert _display_only(ast.parse(source), {"th"}) == ["check: m_sat = th.saturation_size(d, L, s0, sigma)"]
