-- expect: unsafe lock-table
-- doc: https://www.postgresql.org/docs/15/sql-lock.html (default mode ACCESS EXCLUSIVE, held until the transaction ends); explicit-locking.html
-- verified: PG15: LOCK then pg_locks shows ShareRowExclusiveLock on orders held until COMMIT (blocks every writer)
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL, total numeric(12,2), state text, placed_at timestamptz);
BEGIN;
LOCK TABLE orders IN SHARE ROW EXCLUSIVE MODE;
UPDATE orders SET state = 'open' WHERE state IS NULL AND id < 10000;
COMMIT;
