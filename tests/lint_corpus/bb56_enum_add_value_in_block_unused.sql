-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertype.html (from 12 ADD VALUE may run in a transaction block; the value is not used before COMMIT)
-- verified: PG15: block succeeds; enum_range = {pending,paid,shipped,refunded,lost} after COMMIT
-- given: CREATE TYPE order_state AS ENUM ('pending', 'paid', 'shipped');
-- given: CREATE TABLE shipments (id bigint PRIMARY KEY, state order_state NOT NULL DEFAULT 'pending');
BEGIN;
ALTER TYPE order_state ADD VALUE 'refunded';
ALTER TYPE order_state ADD VALUE 'lost';
COMMENT ON TYPE order_state IS 'shipment lifecycle';
COMMIT;
