-- expect: unsafe require-concurrent-reindex
-- doc: https://www.postgresql.org/docs/15/sql-reindex.html ("REINDEX locks out writes but not reads of the index's parent table ... ACCESS EXCLUSIVE lock on the specific index")
-- verified: PG15: pg_locks inside BEGIN: ShareLock on orders (writes blocked) and AccessExclusiveLock on the index; index relfilenode changed
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL, total numeric(12,2), state text, placed_at timestamptz);
-- given: CREATE INDEX orders_user_id_idx ON orders (user_id);
REINDEX INDEX orders_user_id_idx;
