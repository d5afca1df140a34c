-- expect: safe
-- doc: https://www.postgresql.org/docs/current/explicit-locking.html (INSERT ... SELECT takes ROW EXCLUSIVE on the target and ACCESS SHARE on the source, which conflicts only with ACCESS EXCLUSIVE: the application's reads and writes of both tables go on; only new rows are written)
-- pg-version: 15
-- verified: PG15: locks accounts AccessShareLock (held to the end of the transaction); accounts: 1 seq scan of its own, 1000 rows inserted into accounts_copy by the one statement (pg_locks, pg_stat_xact_user_tables, in a rolled-back transaction on a table with rows)
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email text NOT NULL, score int, note text, doubled int GENERATED ALWAYS AS (score * 2) STORED);
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint REFERENCES accounts (id), total numeric, status text);
-- given: CREATE INDEX orders_status_idx ON orders (status);
-- given: ALTER TABLE accounts ADD CONSTRAINT accounts_score_ck CHECK (score >= 0) NOT VALID;
-- given: CREATE MATERIALIZED VIEW account_totals AS SELECT account_id, sum(total) AS total FROM orders GROUP BY account_id;
-- given: CREATE UNIQUE INDEX account_totals_key ON account_totals (account_id);
-- given: INSERT INTO accounts (id, email, score) SELECT g, 'a' || g, g FROM generate_series(1, 1000) g;
-- given: INSERT INTO orders SELECT g, g % 1000 + 1, g, 'new' FROM generate_series(1, 2000) g;
CREATE TABLE accounts_copy (id bigint PRIMARY KEY, email text NOT NULL, score int);
INSERT INTO accounts_copy (id, email, score) SELECT id, email, score FROM accounts ON CONFLICT DO NOTHING;
