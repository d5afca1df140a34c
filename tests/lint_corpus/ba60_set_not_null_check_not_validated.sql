-- expect: unsafe set-not-null
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (SET/DROP NOT NULL: only a VALID CHECK constraint lets the scan be skipped); the NOT VALID constraint is never validated, so SET NOT NULL scans under ACCESS EXCLUSIVE
-- verified: SET NOT NULL seq-scans orders under AccessExclusiveLock (the NOT VALID check is ignored)
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint, total numeric(12,2));
ALTER TABLE orders ADD CONSTRAINT orders_account_id_not_null CHECK (account_id IS NOT NULL) NOT VALID;
ALTER TABLE orders ALTER COLUMN account_id SET NOT NULL;
