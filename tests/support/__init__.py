"""Helpers shared by the integration and fault tests."""
