-- expect: unsafe enum-value-used-in-same-transaction
-- doc: https://www.postgresql.org/docs/current/sql-altertype.html (Notes: a value added inside a transaction block cannot be used until committed)
-- verified: PG15 and PG16 servers (same result): fails: ERROR unsafe use of new value "draft" of enum type order_status; no relfilenode changed (no rewrite); seq_scan unchanged on every table (no scan)
-- given: CREATE TYPE order_status AS ENUM ('pending', 'paid');
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, status order_status NOT NULL DEFAULT 'pending');
BEGIN;
ALTER TYPE order_status ADD VALUE 'draft' BEFORE 'pending';
ALTER TABLE orders ALTER COLUMN status SET DEFAULT 'draft';
COMMIT;
