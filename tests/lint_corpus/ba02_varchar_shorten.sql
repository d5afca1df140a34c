-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (SET DATA TYPE, Notes); src/backend/utils/adt/varchar.c varchar_support only simplifies the length coercion when the new length is >= the old one
-- verified: accounts and accounts_pkey relfilenodes changed (rewrite + index rebuild) under AccessExclusiveLock
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email varchar(100) NOT NULL, name varchar(50), note text);
ALTER TABLE accounts ALTER COLUMN email TYPE varchar(80);
