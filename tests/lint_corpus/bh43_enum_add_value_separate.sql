-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertype.html (ADD VALUE IF NOT EXISTS; used after its own transaction committed); bounded UPDATE
-- verified: PG15: both statements succeed when run as separate transactions
-- given: CREATE TYPE order_state AS ENUM ('new', 'paid', 'shipped');
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, state order_state NOT NULL DEFAULT 'new');
ALTER TYPE order_state ADD VALUE IF NOT EXISTS 'refunded' AFTER 'paid';
UPDATE orders SET state = 'refunded' WHERE id = 7;
