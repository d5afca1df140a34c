"""What to run and how: pending steps, policy, transaction shapes, the lint gate, the
plan, adoption of other tools' history, matching by text, retry backoff. Pure."""
