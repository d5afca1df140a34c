import atexit
import os
import shutil
import tempfile

pytest_plugins = ["tests.fixtures_db"]

# check's result cache (lint/cache.py) goes to a folder of this test session, never into the
# home directory of whoever runs the tests; subprocesses inherit it. Tests of the cache itself
# name their own folder.
_CACHE_HOME = tempfile.mkdtemp(prefix="safemigrate-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME
atexit.register(shutil.rmtree, _CACHE_HOME, ignore_errors=True)
