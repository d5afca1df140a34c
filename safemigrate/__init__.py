"""safemigrate: apply PostgreSQL schema migrations safely to live production databases."""

__version__ = "0.1.0"
