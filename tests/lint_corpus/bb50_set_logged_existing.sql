-- expect: unsafe table-rewrite
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (SET LOGGED/UNLOGGED: the table is rewritten)
-- verified: PG15: DEBUG: rewriting table "page_views"; AccessExclusiveLock; relfilenode changed
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE UNLOGGED TABLE page_views (id bigint PRIMARY KEY, path text, at timestamptz);
ALTER TABLE page_views SET LOGGED;
