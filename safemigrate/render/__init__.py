"""Text and JSON for people and machines: events, reports, fleet tables. Pure."""
