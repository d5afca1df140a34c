-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-truncate.html (TRUNCATE cannot be used on a table that has foreign-key references from other tables, unless all such tables are also truncated in the same command); src/backend/catalog/heap.c heap_truncate_check_FKs (CASCADE: truncate all tables that have foreign-key references to any of the named tables)
-- verified: PG15: accepted (tests/integration/test_rejected_by_schema.py)
CREATE TABLE accounts (id bigint PRIMARY KEY);
CREATE TABLE sessions (id bigint PRIMARY KEY, account_id bigint REFERENCES accounts (id));
TRUNCATE accounts CASCADE;
