-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-reindex.html (PostgreSQL 14+ option list: REINDEX (CONCURRENTLY, VERBOSE) TABLE ...)
-- verified: PG15: succeeds outside a block; INFO lines show orders_pkey, orders_user_id_idx and the toast index reindexed via _ccnew copies
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL, total numeric(12,2), state text, placed_at timestamptz);
-- given: CREATE INDEX orders_user_id_idx ON orders (user_id);
REINDEX (CONCURRENTLY, VERBOSE) TABLE public.orders;
