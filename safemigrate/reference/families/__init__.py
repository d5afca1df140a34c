"""The rows of the reference table, one module per command family."""
