-- expect: unsafe require-concurrent-reindex
-- doc: https://www.postgresql.org/docs/current/sql-reindex.html (CONCURRENTLY is new in 12: the statement fails before)
-- pg-version: 11
-- xfail: pg_version 11 is below the range the reference covers (12-18, issue 25): check judges it as PostgreSQL 12, which has REINDEX CONCURRENTLY
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email varchar(100) NOT NULL, name varchar(50), note text, balance numeric(10,2), created_at timestamp, seen_at timestamp(3), flags varbit(8), net cidr, score int, code char(4), payload json, status text);
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint, total numeric(12,2), placed_at timestamptz, status text);
-- given: CREATE TABLE events (id bigint, kind text, at timestamptz);
-- given: CREATE INDEX CONCURRENTLY accounts_status_idx ON accounts (status);
REINDEX TABLE CONCURRENTLY accounts;
