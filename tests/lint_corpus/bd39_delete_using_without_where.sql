-- expect: unsafe unbounded-data-change
-- doc: https://www.postgresql.org/docs/current/sql-delete.html (USING adds tables to the FROM list; without WHERE every row of the target joins, so every row is deleted)
-- verified: PG15: with 1000 carts and 1 cleanup row: DELETE 1000 (every row)
-- given: CREATE TABLE carts (id bigserial PRIMARY KEY, user_id bigint, updated_at timestamptz);
-- given: CREATE TABLE cart_cleanup_runs (id serial PRIMARY KEY, ran_at timestamptz NOT NULL DEFAULT now());
-- given: INSERT INTO cart_cleanup_runs DEFAULT VALUES;
DELETE FROM carts c
USING cart_cleanup_runs r;
