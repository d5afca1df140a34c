-- expect: unsafe require-concurrent-index-drop
-- doc: https://www.postgresql.org/docs/15/sql-dropindex.html ("A normal DROP INDEX acquires an ACCESS EXCLUSIVE lock on the table")
-- verified: PG15: pg_locks inside BEGIN: AccessExclusiveLock on orders (and on the index)
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL, total numeric(12,2), state text, placed_at timestamptz);
-- given: CREATE INDEX orders_state_idx ON orders (state);
DROP INDEX orders_state_idx;
