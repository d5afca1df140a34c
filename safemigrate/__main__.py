"""``python -m safemigrate``."""

from .cli import entry

entry()
