-- expect: unsafe require-concurrent-index
-- doc: https://www.postgresql.org/docs/15/sql-createindex.html (Building Indexes Concurrently: a normal build locks out writes with a SHARE lock for the whole build)
-- verified: PG15: inside BEGIN, pg_locks shows ShareLock on orders held until COMMIT (blocks INSERT/UPDATE/DELETE); index built
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL, total numeric(12,2), state text, placed_at timestamptz);
CREATE INDEX orders_user_id_idx ON orders (user_id);
