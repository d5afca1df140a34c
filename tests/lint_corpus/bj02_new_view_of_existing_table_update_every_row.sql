-- expect: unsafe unbounded-data-change
-- doc: https://www.postgresql.org/docs/current/sql-createview.html (Updatable Views: an UPDATE of a simple view updates its table's rows; without WHERE every row the view shows)
-- pg-version: 15
-- verified: PG15: strongest locks accounts RowExclusiveLock; accounts: 1000 rows updated (pg_locks, pg_stat_xact_user_tables, in a rolled-back transaction on a table with rows)
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email text NOT NULL, score int, note text, doubled int GENERATED ALWAYS AS (score * 2) STORED);
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint REFERENCES accounts (id), total numeric, status text);
-- given: CREATE INDEX orders_status_idx ON orders (status);
-- given: ALTER TABLE accounts ADD CONSTRAINT accounts_score_ck CHECK (score >= 0) NOT VALID;
-- given: CREATE MATERIALIZED VIEW account_totals AS SELECT account_id, sum(total) AS total FROM orders GROUP BY account_id;
-- given: CREATE UNIQUE INDEX account_totals_key ON account_totals (account_id);
-- given: INSERT INTO accounts (id, email, score) SELECT g, 'a' || g, g FROM generate_series(1, 1000) g;
-- given: INSERT INTO orders SELECT g, g % 1000 + 1, g, 'new' FROM generate_series(1, 2000) g;
CREATE VIEW accounts_all AS SELECT id, email, note FROM accounts;
UPDATE accounts_all SET note = 'checked';
