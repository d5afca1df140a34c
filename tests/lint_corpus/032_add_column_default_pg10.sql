-- expect: unsafe add-column-volatile-default
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: a non-volatile DEFAULT is stored in the catalog from PostgreSQL 11; a volatile one rewrites); before 11 any default rewrites
-- pg-version: 10
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email varchar(100) NOT NULL, name varchar(50), note text, balance numeric(10,2), created_at timestamp, seen_at timestamp(3), flags varbit(8), net cidr, score int, code char(4), payload json, status text);
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint, total numeric(12,2), placed_at timestamptz, status text);
-- given: CREATE TABLE events (id bigint, kind text, at timestamptz);
-- given: CREATE INDEX CONCURRENTLY accounts_status_idx ON accounts (status);
ALTER TABLE accounts ADD COLUMN tier int DEFAULT 0;
