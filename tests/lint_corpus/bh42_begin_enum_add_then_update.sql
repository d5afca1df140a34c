-- expect: unsafe enum-value-used-in-same-transaction
-- doc: https://www.postgresql.org/docs/current/sql-altertype.html (Notes: the new value cannot be used until the transaction commits)
-- verified: PG15: ERROR: unsafe use of new value "refunded" of enum type order_state at the UPDATE; block rolled back
-- given: CREATE TYPE order_state AS ENUM ('new', 'paid', 'shipped');
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, state order_state NOT NULL DEFAULT 'new');
BEGIN;
ALTER TYPE order_state ADD VALUE 'refunded' AFTER 'paid';
UPDATE orders SET state = 'refunded' WHERE id IN (SELECT id FROM orders WHERE state = 'paid' LIMIT 100);
COMMIT;
