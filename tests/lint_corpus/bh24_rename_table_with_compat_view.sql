-- expect: unsafe rename
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (RENAME TO); rule text covers the rename even when a compatibility view is added
-- verified: PG15: block succeeded; SELECT and simple-view INSERT through "users" still work (auto-updatable view)
-- given: CREATE TABLE users (id bigint PRIMARY KEY, email text NOT NULL);
BEGIN;
ALTER TABLE users RENAME TO accounts;
CREATE VIEW users AS SELECT id, email FROM accounts;
COMMIT;
