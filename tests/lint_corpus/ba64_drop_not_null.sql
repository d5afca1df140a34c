-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (DROP NOT NULL: catalog-only change, no scan)
-- verified: accounts relfilenode unchanged, no scan
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email varchar(100) NOT NULL, phone text NOT NULL);
ALTER TABLE accounts ALTER COLUMN phone DROP NOT NULL;
