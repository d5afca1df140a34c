-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-update.html (the WHERE bounds the rows changed)
-- verified: PG15 with 1000 seeded rows: only the 167 soft-deleted active rows changed; RowExclusiveLock on users
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
UPDATE users SET status = 'inactive' WHERE deleted_at IS NOT NULL AND status = 'active';
