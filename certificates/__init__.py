"""attncert certificates: the certificate model, registry, per-paper certificates and the CLI."""
