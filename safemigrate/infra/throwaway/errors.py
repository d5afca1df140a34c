"""The one error the throwaway package raises."""

from __future__ import annotations

from ...core.errors import SafemigrateError


class ThrowawayServerError(SafemigrateError):
    """A throwaway PostgreSQL server could not be found, started, stopped or cleaned up."""
