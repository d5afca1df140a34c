"""The labelled lint corpus: one migration per file, labelled from PostgreSQL's documentation."""
