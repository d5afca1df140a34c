"""I/O that is not the database (layer infra): throwaway servers, check's cache files."""
