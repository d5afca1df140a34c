-- expect: unsafe rejected-by-schema
-- doc: https://www.postgresql.org/docs/current/sql-truncate.html (TRUNCATE cannot be used on a table that has foreign-key references from other tables, unless all such tables are also truncated in the same command); src/backend/catalog/heap.c heap_truncate_check_FKs (also for a table created in the same file)
-- verified: PG15: SQLSTATE 0A000 (tests/integration/test_rejected_by_schema.py)
CREATE TABLE accounts (id bigint PRIMARY KEY);
CREATE TABLE sessions (id bigint PRIMARY KEY, account_id bigint REFERENCES accounts (id));
TRUNCATE accounts;
