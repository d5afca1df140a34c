-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (SET ( storage_parameter ): fillfactor/autovacuum take SHARE UPDATE EXCLUSIVE and do not rewrite: "the table will not be modified immediately")
-- verified: PG15: succeeds; relfilenode of orders unchanged
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL, total numeric(12,2), state text, placed_at timestamptz);
ALTER TABLE orders SET (fillfactor = 80, autovacuum_vacuum_scale_factor = 0.02);
