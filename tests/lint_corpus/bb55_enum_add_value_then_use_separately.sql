-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertype.html (ADD VALUE outside a block commits on its own; a later statement may use the value)
-- verified: PG15: two statements in autocommit both succeed (inside one BEGIN the UPDATE fails with unsafe use of new value)
-- given: CREATE TYPE order_state AS ENUM ('pending', 'paid', 'shipped');
-- given: CREATE TABLE shipments (id bigint PRIMARY KEY, state order_state NOT NULL DEFAULT 'pending');
ALTER TYPE order_state ADD VALUE IF NOT EXISTS 'refunded';
UPDATE shipments SET state = 'refunded' WHERE id = 42;
