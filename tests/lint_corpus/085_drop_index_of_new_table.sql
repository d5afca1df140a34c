-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-dropindex.html; a table created in the same migration is not in use
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email varchar(100) NOT NULL, name varchar(50), note text, balance numeric(10,2), created_at timestamp, seen_at timestamp(3), flags varbit(8), net cidr, score int, code char(4), payload json, status text);
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint, total numeric(12,2), placed_at timestamptz, status text);
-- given: CREATE TABLE events (id bigint, kind text, at timestamptz);
-- given: CREATE INDEX CONCURRENTLY accounts_status_idx ON accounts (status);
CREATE TABLE tags (id bigint PRIMARY KEY, name text);
CREATE INDEX tags_name_idx ON tags (name);
DROP INDEX tags_name_idx;
