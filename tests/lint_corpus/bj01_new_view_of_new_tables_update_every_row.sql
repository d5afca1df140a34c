-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-createview.html (Updatable Views: a write through a simple view is a write to its table; here the view and the table are created in the same migration)
-- pg-version: 15
-- verified: PG15: no lock on accounts or orders (only on the new plans_new and plans_paying); plans_new: 10 rows updated, then deleted; no row of accounts or orders changed (pg_locks, pg_stat_xact_user_tables, in a rolled-back transaction on tables with rows)
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email text NOT NULL, score int, note text, doubled int GENERATED ALWAYS AS (score * 2) STORED);
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint REFERENCES accounts (id), total numeric, status text);
-- given: CREATE INDEX orders_status_idx ON orders (status);
-- given: ALTER TABLE accounts ADD CONSTRAINT accounts_score_ck CHECK (score >= 0) NOT VALID;
-- given: CREATE MATERIALIZED VIEW account_totals AS SELECT account_id, sum(total) AS total FROM orders GROUP BY account_id;
-- given: CREATE UNIQUE INDEX account_totals_key ON account_totals (account_id);
-- given: INSERT INTO accounts (id, email, score) SELECT g, 'a' || g, g FROM generate_series(1, 1000) g;
-- given: INSERT INTO orders SELECT g, g % 1000 + 1, g, 'new' FROM generate_series(1, 2000) g;
CREATE TABLE plans_new (id bigint PRIMARY KEY, account_id bigint, name text);
INSERT INTO plans_new SELECT g, g, 'basic' FROM generate_series(1, 10) g;
CREATE VIEW plans_paying AS SELECT * FROM plans_new WHERE name <> 'free';
UPDATE plans_paying SET name = 'pro';
DELETE FROM plans_paying;
