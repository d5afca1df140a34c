"""What the tests and the benchmarks share: starting the CLI, fresh databases, reading what a
run left behind, the corpora, and the fault-injection trials.

Not a test module and not part of the safemigrate package: tests import it as
``bench.harness``, the scripts in bench/ the same way (with the repository on ``sys.path``), so
that neither imports the other's modules.
"""
