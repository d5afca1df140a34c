-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (ADD COLUMN nullable, no default: catalog only; DROP COLUMN of a column added in this file: no running code knows it)
-- verified: PG15: succeeds; relfilenode of users unchanged; brief AccessExclusiveLock only
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
ALTER TABLE users ADD COLUMN tmp_flag boolean;
ALTER TABLE users DROP COLUMN tmp_flag;
