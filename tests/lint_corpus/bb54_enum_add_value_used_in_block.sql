-- expect: unsafe enum-value-used-in-same-transaction
-- doc: https://www.postgresql.org/docs/15/sql-altertype.html (Notes: a value added inside a transaction block cannot be used until it commits: "unsafe use of new value")
-- verified: PG15: ERROR: unsafe use of new value "refunded" of enum type order_state
-- given: CREATE TYPE order_state AS ENUM ('pending', 'paid', 'shipped');
-- given: CREATE TABLE shipments (id bigint PRIMARY KEY, state order_state NOT NULL DEFAULT 'pending');
BEGIN;
ALTER TYPE order_state ADD VALUE 'refunded' AFTER 'shipped';
UPDATE shipments SET state = 'refunded' WHERE id = 42;
COMMIT;
