-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes: int -> bigint is not binary coercible; "all the actions are applied in a single pass", so the whole ALTER rewrites the table under ACCESS EXCLUSIVE)
-- verified: accounts and accounts_pkey relfilenodes changed (rewrite) under AccessExclusiveLock
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email varchar(100) NOT NULL, name varchar(50), score int);
ALTER TABLE accounts ADD COLUMN locale text, ALTER COLUMN name TYPE varchar(80), ALTER COLUMN score TYPE bigint;
