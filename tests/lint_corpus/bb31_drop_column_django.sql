-- expect: unsafe drop-table-or-column
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (DROP COLUMN: metadata-only, but the running app version may still select the column)
-- verified: PG15: succeeds, AccessExclusiveLock on users, relfilenode unchanged (catalog only); the column is gone
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
ALTER TABLE "users" DROP COLUMN "name" CASCADE;
