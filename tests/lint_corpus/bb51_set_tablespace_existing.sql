-- expect: unsafe table-rewrite
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (SET TABLESPACE: "the table's data file(s) to be moved", ACCESS EXCLUSIVE)
-- verified: PG15 (tablespace dir created first): relfilenode of orders changed (data files copied); ACCESS EXCLUSIVE per docs
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL, total numeric(12,2), state text, placed_at timestamptz);
-- given: CREATE TABLESPACE fast_ssd LOCATION '/tmp/bb_tblspc_fast';
ALTER TABLE orders SET TABLESPACE fast_ssd;
