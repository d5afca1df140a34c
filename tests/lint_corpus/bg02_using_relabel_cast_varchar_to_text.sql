-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: binary coercible needs no rewrite); tablecmds.c ATColumnChangeRequiresRewrite strips RelabelType, so USING name::text (varchar->text is a binary-coercible relabel) is still "the column itself"
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan unchanged on every table (no scan); locks held (whole file in one test transaction): customers AccessExclusiveLock, customers ShareLock, customers_name_idx AccessExclusiveLock
-- given: CREATE TABLE customers (id bigint PRIMARY KEY, name varchar(80) NOT NULL);
-- given: CREATE INDEX customers_name_idx ON customers (name);
ALTER TABLE customers ALTER COLUMN name TYPE text USING name::text;
