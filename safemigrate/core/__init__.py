"""The vocabulary every layer speaks: errors and exit codes, the model, events and the
one EventSink, durations, sizes, what a run reached. Pure."""
