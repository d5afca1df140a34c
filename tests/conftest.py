pytest_plugins = ["tests.fixtures_db"]
