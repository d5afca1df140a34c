-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertype.html (RENAME VALUE, PostgreSQL 10+: catalog only, no table touched); no rule covers it
-- verified: PG15: orders relfilenode unchanged; pg_enum label changed to cancelled
-- given: CREATE TYPE order_state AS ENUM ('new', 'paid', 'canceled');
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, state order_state NOT NULL DEFAULT 'new');
ALTER TYPE order_state RENAME VALUE 'canceled' TO 'cancelled';
