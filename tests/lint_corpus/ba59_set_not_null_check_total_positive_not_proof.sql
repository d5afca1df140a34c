-- expect: unsafe set-not-null
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (SET/DROP NOT NULL: the scan is skipped only if a valid CHECK constraint "proves no NULL can exist"); https://www.postgresql.org/docs/15/ddl-constraints.html ("a check constraint is satisfied if the check expression evaluates to true or the null value"): CHECK (total > 0) admits NULL, so it proves nothing and SET NOT NULL scans under ACCESS EXCLUSIVE
-- verified: the SET NOT NULL still seq-scans orders under AccessExclusiveLock after CHECK (total > 0) was validated
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint, total numeric(12,2));
ALTER TABLE orders ADD CONSTRAINT orders_total_positive CHECK (total > 0) NOT VALID;
ALTER TABLE orders VALIDATE CONSTRAINT orders_total_positive;
ALTER TABLE orders ALTER COLUMN total SET NOT NULL;
