-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-lock.html; the table is created in the same transaction (invisible to other sessions until COMMIT)
-- verified: PG15: block succeeds; the lock is on feature_flags only, created in the same block
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
BEGIN;
CREATE TABLE feature_flags (name text PRIMARY KEY, enabled boolean NOT NULL DEFAULT false);
LOCK TABLE feature_flags IN ACCESS EXCLUSIVE MODE;
INSERT INTO feature_flags VALUES ('new_checkout', false);
COMMIT;
