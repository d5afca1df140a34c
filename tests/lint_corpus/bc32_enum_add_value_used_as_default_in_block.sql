-- expect: unsafe enum-value-used-in-same-transaction
-- doc: https://www.postgresql.org/docs/current/sql-altertype.html (Notes: a value added inside a transaction block cannot be used until the transaction commits); SET DEFAULT 'pending' parses the literal with enum_in, which performs the "unsafe use" check
-- verified: PG15: ERROR "unsafe use of new value "pending" of enum type order_state" at the ALTER TABLE ... SET DEFAULT; HINT "New enum values must be committed before they can be used."
-- given: CREATE TYPE order_state AS ENUM ('placed', 'shipped', 'delivered');
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, state order_state NOT NULL DEFAULT 'placed');
BEGIN;
ALTER TYPE order_state ADD VALUE 'pending' BEFORE 'placed';
ALTER TABLE orders ALTER COLUMN state SET DEFAULT 'pending';
COMMIT;
