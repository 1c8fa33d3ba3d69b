"""A random, seeded set of mutations of theory/ and solvers/, chosen by a generator, not a person.

Issue 11 asks that "a fresh set of mutations, chosen without looking at the harness, is caught at
the same rate" as the curated catalogue. A person choosing mutations after reading the code (the
three fresh sets) still chooses; this script does not. It lists every site of the classic
mutation operators (mutmut's and cosmic-ray's) in the given files:

- a number n becomes n + 1 (booleans are swapped);
- an arithmetic operator is swapped: + and -, * and /, ** becomes *, // becomes /, % becomes /;
- a comparison is swapped: < and <=, > and >=, == and !=, is and is not, in and not in;
- ``and`` and ``or`` are swapped, a unary minus or ``not`` is dropped, ``+=`` and ``-=`` swapped;

skipping only what cannot change a computed value: docstrings, type annotations, the messages of
``raise`` statements and f-strings. It draws ``--count`` sites uniformly with ``--seed`` and writes
them in the catalogue format of ``benchmarks/mutation.py`` (an exact snippet, unique in its file,
and its replacement), which then judges them:

    python benchmarks/mutation_random.py --seed 20261201 --count 100 --out benchmarks/mutations_random.toml
    python benchmarks/mutation.py --catalogue benchmarks/mutations_random.toml --json out/random.json

Only the draw is random; the same seed and source give the same set.

``--replay CATALOGUE...`` draws instead from the mutants of earlier sets: the distinct ones that some
set did not judge equivalent and whose snippet still occurs once in its file. Each was killed once, on
first contact or after a fix, so a survivor is a regression: a later change that reopened it (set 51
found Thm 4.4's band two wide, killed by sets 14 and 16, alive again after set 26's fix). With
``--files``, only the mutants of those files: after a fix, replay every earlier mutant of the file it
touched (a ``--count`` above the pool takes them all):

    python benchmarks/mutation_random.py --seed 20270201 --count 100 --out replay.toml \
        --replay benchmarks/mutations_random*.toml

``--undrawn CATALOGUE...`` writes instead every site that none of those sets drew (no seed: nothing is
chosen). With a replay of the whole live pool it completes an exhaustive run: every site of the current
source mutated once, a set at a time, each set committed before it ran:

    python benchmarks/mutation_random.py --out undrawn.toml --undrawn benchmarks/mutations_random*.toml
"""

from __future__ import annotations

import argparse
import ast
import random
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the papers whose certificates a mutation of each file should disturb (all three for shared code)
PAPERS_OF = {
    "theory/plga.py": ("plga",),
    "theory/gllm.py": ("gllm",),
    "theory/psa.py": ("psa",),
    "theory/exact.py": ("plga", "gllm", "psa"),
    "solvers/plga.py": ("plga",),
    "solvers/grades.py": ("gllm",),
    "solvers/gllm_models.py": ("gllm",),
    "solvers/psa_operators.py": ("psa",),
    "solvers/score_model.py": ("psa",),
    "solvers/score_quadrature.py": ("psa",),
    "solvers/phase.py": ("psa",),
    "solvers/sweep.py": ("psa",),
    "solvers/backend.py": ("plga", "gllm", "psa"),
}
BINARY = {ast.Add: "-", ast.Sub: "+", ast.Mult: "/", ast.Div: "*", ast.Pow: "*", ast.FloorDiv: "/", ast.Mod: "/"}
TOKEN = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**", ast.FloorDiv: "//", ast.Mod: "%"}
COMPARE = {
    ast.Lt: ("<", "<="),
    ast.LtE: ("<=", "<"),
    ast.Gt: (">", ">="),
    ast.GtE: (">=", ">"),
    ast.Eq: ("==", "!="),
    ast.NotEq: ("!=", "=="),
    ast.Is: ("is", "is not"),
    ast.IsNot: ("is not", "is"),
    ast.In: ("in", "not in"),
    ast.NotIn: ("not in", "in"),
}


@dataclass(frozen=True)
class Site:
    """One mutation: replace the characters [start, end) of ``file`` by ``text``."""

    file: str
    line: int
    kind: str
    start: int
    end: int
    text: str


def _offset(lines: list[str], line: int, col: int) -> int:
    """Character offset in the file of (1-based line, UTF-8 byte column), as ``ast`` reports them."""
    before = sum(len(x) for x in lines[: line - 1])
    return before + len(lines[line - 1].encode()[:col].decode())


def _skipped(tree: ast.AST) -> set[int]:
    """ids of nodes whose mutation cannot change a computed value."""
    skip: set[int] = set()

    def mark(node: ast.AST | None) -> None:
        if node is not None:
            skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.Raise | ast.JoinedStr):
            mark(node)
        elif isinstance(node, ast.AnnAssign):
            mark(node.annotation)
        elif isinstance(node, ast.arg):
            mark(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            mark(node.returns)
        elif isinstance(node, ast.Assert):
            mark(node.msg)
    return skip


def sites(file: str, root: Path = ROOT) -> Iterator[Site]:
    """Every mutation site of ``file`` (relative to ``root``), in source order."""
    source = (root / file).read_text()
    lines = source.splitlines(keepends=True)
    tree = ast.parse(source)
    skip = _skipped(tree)

    def at(node: ast.AST, end: bool = False) -> int:
        if end:
            return _offset(lines, node.end_lineno, node.end_col_offset)
        return _offset(lines, node.lineno, node.col_offset)

    def swap_in_gap(left: ast.AST, right: ast.AST, old: str, new: str, kind: str, line: int) -> Site | None:
        start, end = at(left, end=True), at(right)
        gap = source[start:end]
        # the operator token in the gap between the operands (parentheses and spaces aside)
        index = gap.find(old)
        if index < 0:
            return None
        return Site(file, line, kind, start + index, start + index + len(old), new)

    for node in ast.walk(tree):
        if id(node) in skip or not hasattr(node, "lineno"):
            continue
        if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
            value = node.value
            text = str(not value) if isinstance(value, bool) else repr(value + 1)
            yield Site(file, node.lineno, "number", at(node), at(node, end=True), text)
        elif isinstance(node, ast.BinOp) and type(node.op) in BINARY:
            site = swap_in_gap(node.left, node.right, TOKEN[type(node.op)], BINARY[type(node.op)], "arithmetic", node.lineno)
            if site is not None:
                yield site
        elif isinstance(node, ast.AugAssign) and type(node.op) in (ast.Add, ast.Sub):
            old, new = ("+=", "-=") if isinstance(node.op, ast.Add) else ("-=", "+=")
            site = swap_in_gap(node.target, node.value, old, new, "augmented", node.lineno)
            if site is not None:
                yield site
        elif isinstance(node, ast.Compare):
            left = node.left
            for op, right in zip(node.ops, node.comparators, strict=True):
                old, new = COMPARE[type(op)]
                site = swap_in_gap(left, right, old, new, "comparison", node.lineno)
                if site is not None:
                    yield site
                left = right
        elif isinstance(node, ast.BoolOp):
            old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
            site = swap_in_gap(node.values[0], node.values[1], old, new, "boolean", node.lineno)
            if site is not None:
                yield site
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.Not):
            start, operand = at(node), at(node.operand)
            yield Site(file, node.lineno, "unary", start, operand, "")


def catalogue_entry(site: Site, root: Path = ROOT) -> dict[str, object] | None:
    """The site as a catalogue entry: whole lines around it, widened until they occur once in the
    file; None when the mutant does not parse."""
    source = (root / site.file).read_text()
    mutated = source[: site.start] + site.text + source[site.end :]
    try:
        ast.parse(mutated)
    except SyntaxError:
        return None
    first = source.rfind("\n", 0, site.start) + 1
    last = source.find("\n", site.end)
    last = len(source) if last < 0 else last
    while source.count(source[first:last]) != 1:
        if first > 0:
            first = source.rfind("\n", 0, first - 1) + 1
        else:
            last = source.find("\n", last + 1) if source.find("\n", last + 1) >= 0 else len(source)
    find = source[first:last]
    replace = source[first : site.start] + site.text + source[site.end : last]
    return {"find": find, "replace": replace}


def draw(seed: int, count: int, files: list[str], root: Path = ROOT) -> list[tuple[Site, dict[str, object]]]:
    """``count`` sites drawn uniformly (without replacement) from every site of ``files``."""
    every = [s for f in files for s in sites(f, root)]
    rng = random.Random(seed)
    chosen = []
    for site in rng.sample(every, len(every)):
        entry = catalogue_entry(site, root)
        if entry is not None:
            chosen.append((site, entry))
        if len(chosen) == count:
            break
    return sorted(chosen, key=lambda c: (c[0].file, c[0].start))


def replayable(catalogues: list[Path], root: Path = ROOT, files: list[str] | None = None) -> list[dict[str, object]]:
    """The distinct mutants of ``catalogues`` (earlier random sets, ``mutations_randomN.toml``) that some set
    did not judge equivalent and whose snippet still occurs once in its file (one of ``files``, if given), each
    named after the first set that drew it. A mutant one set judged equivalent and a later one killed (or found
    a real survivor) is replayed: the later judgment saw newer code or tests, or the earlier one was wrong
    (set 66 found real the undrawn set's equivalent `f(hi) < 1`). Only a mutant every set judged equivalent is
    left out."""
    first: dict[tuple[str, str, str], dict[str, object]] = {}
    live = set()
    # in the sets' order (mutations_random.toml is set 1), whatever order the shell's glob gave
    for path in sorted(catalogues, key=lambda p: int("".join(filter(str.isdigit, p.stem)) or 1)):
        prefix = path.stem.removeprefix("mutations_")
        for mutation in tomllib.loads(path.read_text())["mutation"]:
            key = (mutation["file"], mutation["find"], mutation["replace"])
            if "equivalent" not in mutation:
                live.add(key)
            first.setdefault(key, {**mutation, "name": f"{prefix}_{mutation['name']}"})
    wanted = [key for key in first if key in live and (files is None or key[0] in files)]
    return [first[key] for key in wanted if (root / key[0]).read_text().count(key[1]) == 1]


def draw_replay(
    seed: int, count: int, catalogues: list[Path], root: Path = ROOT, files: list[str] | None = None
) -> list[dict[str, object]]:
    """``count`` of the ``replayable`` mutants, drawn uniformly without replacement."""
    pool = sorted(replayable(catalogues, root, files), key=lambda m: (m["file"], m["find"], m["replace"]))
    return random.Random(seed).sample(pool, min(count, len(pool)))


def undrawn(catalogues: list[Path], files: list[str], root: Path = ROOT) -> list[tuple[Site, dict[str, object]]]:
    """Every site of ``files`` whose mutant (file, snippet, replacement) none of ``catalogues`` holds, in source
    order; a site whose lines changed since a set drew it counts as undrawn (its old snippet no longer applies)."""
    drawn = {(m["file"], m["find"], m["replace"]) for path in catalogues for m in tomllib.loads(path.read_text())["mutation"]}
    chosen = []
    for file in files:  # in the given order, each file in source order
        for site in sorted(sites(file, root), key=lambda s: s.start):
            entry = catalogue_entry(site, root)
            if entry is not None and (file, entry["find"], entry["replace"]) not in drawn:
                chosen.append((site, entry))
    return chosen


def _toml_string(text: str) -> str:
    # a literal multi-line string drops a newline right after its opening quotes: such text is escaped
    if "'''" not in text and not text.endswith("'") and not text.startswith("\n"):
        return f"'''{text}'''"
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _entry_lines(entry: dict[str, object]) -> list[str]:
    """One catalogue entry (name, file, papers, find, replace) in the format of ``benchmarks/mutation.py``."""
    return [
        "[[mutation]]",
        f'name = "{entry["name"]}"',
        f'file = "{entry["file"]}"',
        f"papers = [{', '.join(f'{chr(34)}{p}{chr(34)}' for p in entry['papers'])}]",
        f"find = {_toml_string(str(entry['find']))}",
        f"replace = {_toml_string(str(entry['replace']))}",
        "",
    ]


def render(seed: int | None, chosen: list[tuple[Site, dict[str, object]]], total: int) -> str:
    if seed is None:
        head = [
            f"# Undrawn set: the {len(chosen)} of the {total} mutation sites of theory/ and solvers/ that no earlier",
            "# set drew, written by benchmarks/mutation_random.py --undrawn (regenerate it from the same source and sets).",
        ]
    else:
        head = [
            f"# Random mutation set: seed {seed}, {len(chosen)} of the {total} mutation sites of theory/ and",
            "# solvers/, drawn by benchmarks/mutation_random.py (regenerate it with the same seed and source).",
        ]
    out = [*head, ""]
    for site, entry in chosen:
        stem = site.file.replace("/", "_").removesuffix(".py")
        name = f"rnd_{stem}_L{site.line}_{site.kind}_{site.start}"
        out += _entry_lines({**entry, "name": name, "file": site.file, "papers": PAPERS_OF[site.file]})
    return "\n".join(out)


def render_replay(seed: int, chosen: list[dict[str, object]], total: int) -> str:
    out = [
        f"# Replay set: seed {seed}, {len(chosen)} of the {total} distinct mutants of earlier random sets that",
        "# some set did not judge equivalent and that still apply, drawn by benchmarks/mutation_random.py --replay.",
        "",
    ]
    for entry in chosen:
        out += _entry_lines(entry)
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, help="the draw's seed (not with --undrawn, which draws nothing)")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--files", nargs="*", default=sorted(PAPERS_OF), help="files to mutate (default: theory/ and solvers/)")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--replay", nargs="+", type=Path, metavar="CATALOGUE", help="draw from these earlier sets' mutants")
    what.add_argument("--undrawn", nargs="+", type=Path, metavar="CATALOGUE", help="every site these sets never drew")
    args = parser.parse_args(argv)
    if (args.seed is None) != bool(args.undrawn):
        parser.error("--seed is required for a draw or a replay, and meaningless with --undrawn")
    if args.replay:
        total = len(replayable(args.replay, files=args.files))
        args.out.write_text(render_replay(args.seed, draw_replay(args.seed, args.count, args.replay, files=args.files), total))
        print(f"{min(args.count, total)} of {total} replayable mutants written to {args.out}", file=sys.stderr)
        return 0
    total = sum(1 for f in args.files for _ in sites(f))
    if args.undrawn:
        chosen = undrawn(args.undrawn, args.files)
        args.out.write_text(render(None, chosen, total))
        print(f"{len(chosen)} of {total} sites (never drawn) written to {args.out}", file=sys.stderr)
        return 0
    chosen = draw(args.seed, args.count, args.files)
    args.out.write_text(render(args.seed, chosen, total))
    print(f"{len(chosen)} of {total} sites written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
