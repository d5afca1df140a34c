-- expect: unsafe unbounded-data-change
-- doc: https://www.postgresql.org/docs/15/sql-update.html; explicit-locking.html 13.3.2 (every row locked until commit)
-- verified: PG15 with 1000 seeded rows: all 1000 rows rewritten (status ACTIVE count 500 -> 0); RowExclusiveLock on users
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
UPDATE users SET status = lower(status);
