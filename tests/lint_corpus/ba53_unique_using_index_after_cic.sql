-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (ADD table_constraint_using_index); https://www.postgresql.org/docs/15/sql-createindex.html#SQL-CREATEINDEX-CONCURRENTLY; attaching an existing unique index is catalog-only
-- verified: CREATE UNIQUE INDEX CONCURRENTLY outside a block; the ALTER did no scan and did not rebuild the index (AccessExclusiveLock brief)
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email varchar(100) NOT NULL);
CREATE UNIQUE INDEX CONCURRENTLY accounts_email_key ON accounts (email);
ALTER TABLE accounts ADD CONSTRAINT accounts_email_key UNIQUE USING INDEX accounts_email_key;
