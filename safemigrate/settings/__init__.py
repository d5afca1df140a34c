"""The settings: safemigrate.toml, the environment, flags; fleet targets. Pure."""
