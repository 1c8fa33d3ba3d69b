"""The published JSON Schema of profile files agrees with attncert's own validation (issue 12)."""

import json
from pathlib import Path

import pytest

from attncert.certificates.frontends.profiles import ProfileError, load_profiles

jsonschema = pytest.importorskip("jsonschema")

EXAMPLES = Path(__file__).resolve().parents[1] / "certificates" / "examples"
SCHEMA = json.loads((EXAMPLES / "profile.schema.json").read_text())
# bad examples whose problem a schema cannot express (lengths, sums, zeros, files, values in lists)
SEMANTIC = {
    "bad_candidate_length.json",
    "nan_value.json",
    "negative_energy.json",
    "missing_values_file.json",
    "not_normalized.json",
    "wrong_length.json",
    "zero_target.json",
}


def test_the_schema_is_valid():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("path", sorted((EXAMPLES / "profiles").glob("*.json")), ids=lambda p: p.name)
def test_every_good_example_satisfies_the_schema(path):
    jsonschema.validate(json.loads(path.read_text()), SCHEMA)
    load_profiles(path)


@pytest.mark.parametrize(
    "path",
    sorted(p for p in (EXAMPLES / "profiles" / "bad").glob("*.json") if p.name != "syntax_error.json"),
    ids=lambda p: p.name,
)
def test_bad_examples_fail_the_schema_or_the_semantic_checks(path):
    doc = json.loads(path.read_text())
    valid = jsonschema.Draft202012Validator(SCHEMA).is_valid(doc)
    assert valid == (path.name in SEMANTIC), path.name
    with pytest.raises(ProfileError):
        load_profiles(path)


@pytest.mark.parametrize(
    "patch",
    [
        {"selection": {"lambda": 1.1, "d_k": 8}},
        {"selection": {"C": 0.5}},
        {"selection": "clipped"},
        {"target": {"granularity": "level", "kind": "energies", "values": [1, 2], "centred": True}},
        {"target": {"granularity": "geometric", "nu": 0.6, "kind": "energies"}},
        {"candidates": [{"name": "x", "q": [0, 1], "g": [1, 2]}]},
        {"task": 3},
        # the loader's size limit (MAX_COORDINATES), which the schema once put at 10^7
        {"basis": {"d": 2_000_001}},
        {"basis": {"levels": [{"index": 0, "name": "x", "dim": 2_000_001}]}},
    ],
)
def test_schema_and_validator_reject_the_same_structural_errors(patch, tmp_path):
    doc = json.loads((EXAMPLES / "profiles" / "table3_nu05_mu02.json").read_text())
    doc.update(patch)
    assert not jsonschema.Draft202012Validator(SCHEMA).is_valid(doc)
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ProfileError):
        load_profiles(path)
