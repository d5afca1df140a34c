"""The database layer: the only code in safemigrate that imports psycopg.

Everything above it sees plain Python values and safemigrate's own exceptions: ServerError for an
SQL error (with its SQLSTATE), ConnectionFailedError for a lost or refused connection.
"""

from .session import ServerError, Session

__all__ = ["ServerError", "Session"]
