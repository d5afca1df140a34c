"""What a statement does to PostgreSQL: the parsed statement, its locks, recipes,
batches, recovery, session state, object names, volatility. Pure."""
