-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-droptable.html; the table is created earlier in this file (a scratch table), no running code uses it
-- verified: PG15: succeeds; only AccessShareLock on users for the CTAS; the scratch table is gone at the end
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE _tmp_user_backfill AS SELECT id, email FROM users WHERE false;
DROP TABLE IF EXISTS _tmp_user_backfill;
