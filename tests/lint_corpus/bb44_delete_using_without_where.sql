-- expect: unsafe unbounded-data-change
-- doc: https://www.postgresql.org/docs/15/sql-delete.html (USING without a WHERE joins every row: every row of the target is deleted)
-- verified: PG15: succeeds; no WHERE: every order_flags row joined to any order is deleted
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL, total numeric(12,2), state text, placed_at timestamptz);
-- given: CREATE TABLE order_flags (id bigint PRIMARY KEY, order_id bigint, flag text);
DELETE FROM order_flags USING orders;
