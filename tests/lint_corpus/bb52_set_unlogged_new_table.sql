-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (SET UNLOGGED rewrites; here the table was created empty earlier in this file)
-- verified: PG15: DEBUG: rewriting table "import_staging" (the new empty table only)
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE import_staging (id bigint, raw text);
ALTER TABLE import_staging SET UNLOGGED;
