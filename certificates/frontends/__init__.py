"""Front ends: the ``attncert`` command line (one module per command) and its terminal, JSON,
Markdown, CSV and HTML writers. Nothing here decides a verdict."""
