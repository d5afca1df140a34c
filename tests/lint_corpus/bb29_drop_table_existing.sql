-- expect: unsafe drop-table-or-column
-- doc: https://www.postgresql.org/docs/15/sql-droptable.html (the table and its data are gone; running code that uses it fails)
-- verified: PG15: legacy_tokens and its index gone; AccessExclusiveLock on users too (CASCADE drops the FK)
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE legacy_tokens (id bigint PRIMARY KEY, user_id bigint REFERENCES users(id), token text);
DROP TABLE IF EXISTS legacy_tokens CASCADE;
