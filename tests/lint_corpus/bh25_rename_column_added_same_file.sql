-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD COLUMN nullable: catalog only; RENAME of a column no running code knows yet)
-- verified: PG15: relfilenode of invoices unchanged; both statements instant
-- given: CREATE TABLE invoices (id bigint PRIMARY KEY, amount numeric(12,2));
ALTER TABLE invoices ADD COLUMN paid_on date;
-- typo fix before release
ALTER TABLE invoices RENAME COLUMN paid_on TO paid_at_date;
