"""The command line: options -> library call -> rendering -> exit code. The only click code.

``main`` is the click group (its commands in one module each), ``entry`` the console script
and ``python -m safemigrate``.
"""

from __future__ import annotations

from .group import entry, main

__all__ = ["entry", "main"]
