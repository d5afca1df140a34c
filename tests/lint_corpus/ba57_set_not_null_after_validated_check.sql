-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (SET/DROP NOT NULL: "if a valid CHECK constraint exists (and is not dropped in the same command) which proves no NULL can exist, then the table scan is skipped", PostgreSQL 12+); NOT VALID + separate VALIDATE take only brief locks / SHARE UPDATE EXCLUSIVE
-- verified: ADD NOT VALID: no scan; VALIDATE: scan under ShareUpdateExclusiveLock; SET NOT NULL: no scan (AccessExclusiveLock brief); DROP CONSTRAINT: no scan
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint, total numeric(12,2));
ALTER TABLE orders ADD CONSTRAINT orders_account_id_not_null CHECK (account_id IS NOT NULL) NOT VALID;
ALTER TABLE orders VALIDATE CONSTRAINT orders_account_id_not_null;
ALTER TABLE orders ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE orders DROP CONSTRAINT orders_account_id_not_null;
