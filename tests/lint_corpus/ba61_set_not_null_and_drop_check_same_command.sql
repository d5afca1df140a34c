-- expect: unsafe set-not-null
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (SET/DROP NOT NULL: the scan is skipped only if the valid CHECK constraint "is not dropped in the same command")
-- verified: seq scan of orders under AccessExclusiveLock, although the validated CHECK existed before the statement
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint, total numeric(12,2));
-- given: ALTER TABLE orders ADD CONSTRAINT orders_account_id_not_null CHECK (account_id IS NOT NULL) NOT VALID;
-- given: ALTER TABLE orders VALIDATE CONSTRAINT orders_account_id_not_null;
ALTER TABLE orders ALTER COLUMN account_id SET NOT NULL, DROP CONSTRAINT orders_account_id_not_null;
