-- expect: unsafe rename
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (SET SCHEMA moves the table: queries using the old qualified name or search_path fail)
-- verified: PG15: orders, its sequence and pkey moved from public to archive (relfilenodes unchanged); AccessExclusiveLock on orders
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL, total numeric(12,2), state text, placed_at timestamptz);
-- given: CREATE SCHEMA archive;
ALTER TABLE IF EXISTS public.orders SET SCHEMA archive;
