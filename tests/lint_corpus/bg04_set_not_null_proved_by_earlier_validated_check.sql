-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET/DROP NOT NULL: "if a valid CHECK constraint exists ... which proves no NULL can exist, then the table scan is skipped", PG 12+); the CHECK was added (validated) by an earlier migration
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan unchanged on every table (no scan); locks held (whole file in one test transaction): invoices AccessExclusiveLock
-- given: CREATE TABLE invoices (id bigint PRIMARY KEY, customer_id bigint, total numeric(12,2));
-- given: ALTER TABLE invoices ADD CONSTRAINT invoices_customer_id_nn CHECK (customer_id IS NOT NULL) NOT VALID;
-- given: ALTER TABLE invoices VALIDATE CONSTRAINT invoices_customer_id_nn;
ALTER TABLE invoices ALTER COLUMN customer_id SET NOT NULL;
ALTER TABLE invoices DROP CONSTRAINT invoices_customer_id_nn;
