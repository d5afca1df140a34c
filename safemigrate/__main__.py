"""``python -m safemigrate``."""

from .cli import main

main()
