-- expect: unsafe set-not-null
-- doc: https://www.postgresql.org/docs/11/sql-altertable.html (SET/DROP NOT NULL: "SET NOT NULL may only be applied to a column providing none of the records in the table contain a NULL value" - always verified by a scan); the CHECK-proof shortcut arrived in PostgreSQL 12 (release notes)
-- verified: not reproducible on 15 (on 15: no scan thanks to the validated CHECK); label rests on the PostgreSQL 12 release notes / 11 docs: before 12 SET NOT NULL always scans
-- pg-version: 11
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint, total numeric(12,2));
-- given: ALTER TABLE orders ADD CONSTRAINT orders_account_id_not_null CHECK (account_id IS NOT NULL) NOT VALID;
-- given: ALTER TABLE orders VALIDATE CONSTRAINT orders_account_id_not_null;
ALTER TABLE orders ALTER COLUMN account_id SET NOT NULL;
