-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (SET/DROP NOT NULL: a valid CHECK constraint that proves no NULL can exist lets PostgreSQL 12+ skip the scan); the CHECK was added and validated by earlier migrations (given)
-- verified: no scan of orders; AccessExclusiveLock brief
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint, total numeric(12,2));
-- given: ALTER TABLE orders ADD CONSTRAINT orders_account_id_not_null CHECK (account_id IS NOT NULL) NOT VALID;
-- given: ALTER TABLE orders VALIDATE CONSTRAINT orders_account_id_not_null;
ALTER TABLE orders ALTER COLUMN account_id SET NOT NULL;
