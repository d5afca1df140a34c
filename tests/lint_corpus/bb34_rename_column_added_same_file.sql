-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (ADD COLUMN nullable: catalog only; RENAME of a column added in this file: no running code uses it)
-- verified: PG15: succeeds; users relfilenode unchanged
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
ALTER TABLE users ADD COLUMN nick varchar(40);
ALTER TABLE users RENAME COLUMN nick TO nickname;
