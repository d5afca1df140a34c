-- expect: unsafe require-concurrent-index
-- doc: https://www.postgresql.org/docs/15/sql-createindex.html (partial index: the WHERE limits the entries, not the lock or the scan of the table)
-- verified: PG15: pg_locks inside BEGIN: ShareLock on users for the build (partial WHERE does not reduce the lock)
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
CREATE UNIQUE INDEX "index_users_on_email" ON "users" ("email") WHERE deleted_at IS NULL;
