"""Guards from the seventeenth random mutation set (benchmarks/mutations_random17.toml): facts that
no test pinned until a mutant of the line survived."""

import ast
import math
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
import z3

from attncert.solvers import gllm_models
from attncert.theory import plga as tplga

THEORY = Path(tplga.__file__).parent  # not resolved: the installed (or mutated) package, file by file
#: SymPy constructors whose keyword arguments are assumptions on the symbols they make
_DECLARATIONS = {"Symbol", "symbols", "Dummy", "IndexedBase", "Idx", "Wild"}


def _negative_assumptions(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in _DECLARATIONS:
                found += [
                    f"{path.name}:{node.lineno}: {keyword.arg}=False"
                    for keyword in node.keywords
                    if isinstance(keyword.value, ast.Constant) and keyword.value.value is False
                ]
    return found


def test_no_theory_symbol_is_declared_by_what_it_is_not():
    """A proof 'for every x' declares what x is (real, integer, positive) or nothing; an assumption set to
    False (real=False, integer=False, positive=False) restricts it to the complement, which excludes the
    claim's own domain, and SymPy's facts often hold there too, so the proof stays green while proving
    nothing the paper states (set 17: Lemma 3.9's delta declared non-integer, Prop 4.1's cosines and sines
    declared nonreal; set 16: the softmax shift declared nonreal)."""
    found = [line for path in sorted(THEORY.glob("*.py")) for line in _negative_assumptions(path)]
    assert found == []


def test_the_declaration_scan_sees_a_negative_assumption(tmp_path):
    source = tmp_path / "lemma.py"
    source.write_text('import sympy as sp\nc = sp.Symbol("c", real=False)\nk, j = sp.symbols("k j", integer=True)\n')
    assert _negative_assumptions(source) == ["lemma.py:2: real=False"]


def test_z3_multivariate_is_the_polynomial_term_by_term():
    x, y = sp.symbols("x y")
    X, Y = z3.Reals("X Y")
    term = tplga.z3_multivariate(x**2 * y - 3 * x + sp.Rational(1, 2), {x: X, y: Y})
    assert tplga.z3_valid(term == X * X * Y - 3 * X + z3.RealVal("1/2")).holds
    with pytest.raises(sp.PolynomialError):
        tplga.z3_multivariate(sp.sqrt(x) + y, {x: X, y: Y})


def test_z3_in_sigmoid_writes_the_activation_derivatives_in_u_and_s():
    """Cor 5.13's envelopes are decided on SymPy's derivatives, written in u and s = s(u): they must be
    iSwiGLU' = 2 u s + u^2 s (1 - s) and silu' = s + u s (1 - s) (set 17: z3 read a retyped iSwiGLU' whose
    sign could flip, and the envelope, an absolute value, held for both)."""
    x = sp.Symbol("x", real=True)
    u, s = z3.Reals("u s")
    for expr, expected in (
        (sp.diff(tplga.iswiglu(x), x), 2 * u * s + u * u * s * (1 - s)),
        (sp.diff(x * tplga.sigmoid(x), x), s + u * s * (1 - s)),
    ):
        assert tplga.z3_valid(tplga.z3_in_sigmoid(expr, x, u, s) == expected).holds


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("offset", [1000.0, -1000.0])
def test_softmax_rows_is_shift_invariant_far_from_zero(causal, offset):
    """softmax(z + c) = softmax(z): scores near +-1000 (whose exponentials overflow or underflow a double)
    give the same finite weights as scores near 0, since each row is shifted by its own maximum first."""
    rng = np.random.default_rng(17)
    scores = rng.standard_normal((5, 5))
    near_zero = gllm_models.softmax_rows(scores, causal)
    far = gllm_models.softmax_rows(scores + offset, causal)
    assert np.all(np.isfinite(far))
    np.testing.assert_allclose(far, near_zero, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(far.sum(axis=1), 1.0, rtol=1e-14)
    assert math.isclose(far[0, 0], 1.0) if causal else far[0, 0] < 1.0
