-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-createindex.html (CONCURRENTLY: SHARE UPDATE EXCLUSIVE, reads and writes go on)
-- verified: PG15: runs outside a block and succeeds; pg_index.indisvalid = true; CONCURRENTLY takes SHARE UPDATE EXCLUSIVE (docs)
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL, total numeric(12,2), state text, placed_at timestamptz);
CREATE INDEX CONCURRENTLY orders_user_id_idx ON orders (user_id);
