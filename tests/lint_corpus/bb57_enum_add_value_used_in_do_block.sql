-- expect: unsafe enum-value-used-in-same-transaction
-- doc: https://www.postgresql.org/docs/15/sql-do.html (a DO block runs in one transaction); sql-altertype.html (unsafe use of new value)
-- verified: PG15: ERROR: unsafe use of new value "returned" of enum type order_state (CONTEXT: PL/pgSQL inline_code_block)
-- given: CREATE TYPE order_state AS ENUM ('pending', 'paid', 'shipped');
-- given: CREATE TABLE shipments (id bigint PRIMARY KEY, state order_state NOT NULL DEFAULT 'pending');
DO $$
BEGIN
  EXECUTE 'ALTER TYPE order_state ADD VALUE ''returned''';
  UPDATE shipments SET state = 'returned' WHERE id = 7;
END
$$;
