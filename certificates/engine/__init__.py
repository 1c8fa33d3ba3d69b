"""The certificate engine: the model (claims, certificates, evidence, verdicts), the registry,
the runner that enforces the discipline, evidence constructors, numeric cross-checks and the
claims ledger. Front ends and paper sets build on it; it imports neither."""
