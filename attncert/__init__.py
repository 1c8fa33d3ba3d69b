"""attncert: a certificate verifier for the mathematics of the PLGA/PLDR-LLM, GLLM and PSA
attention papers.

One import root. Its subpackages live in the repository's top-level folders, mapped by
``pyproject.toml``: ``attncert.theory`` (the mathematics, pure), ``attncert.solvers`` (numerical
engines) and ``attncert.certificates`` (the certificate engine, the three paper sets and the
front ends). Data flows one way: theory -> solvers -> certificates -> command line and reports.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("attncert")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"
