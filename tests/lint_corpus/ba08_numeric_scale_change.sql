-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes); numeric_support only simplifies when the scale is unchanged (a new scale re-rounds every value), so numeric(10,2) -> numeric(12,4) rewrites
-- verified: invoices and invoices_pkey relfilenodes changed (rewrite) under AccessExclusiveLock
-- given: CREATE TABLE invoices (id bigint PRIMARY KEY, total numeric(10,2) NOT NULL, tax numeric(10,2));
ALTER TABLE invoices ALTER COLUMN tax TYPE numeric(12,4);
