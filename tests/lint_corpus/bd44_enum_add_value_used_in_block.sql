-- expect: unsafe enum-value-used-in-same-transaction
-- doc: https://www.postgresql.org/docs/current/sql-altertype.html (Notes: "If ALTER TYPE ... ADD VALUE ... is executed inside a transaction block, the new value cannot be used until after the transaction has been committed")
-- verified: PG15: ERROR: unsafe use of new value "delivered" of enum type order_status (HINT: New enum values must be committed before they can be used); the block rolls back
-- given: CREATE TYPE order_status AS ENUM ('pending', 'paid', 'shipped');
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, status order_status NOT NULL DEFAULT 'pending', shipped_at timestamptz, delivered_at timestamptz);
BEGIN;
ALTER TYPE order_status ADD VALUE IF NOT EXISTS 'delivered' AFTER 'shipped';
UPDATE orders SET status = 'delivered' WHERE delivered_at IS NOT NULL AND status = 'shipped';
COMMIT;
