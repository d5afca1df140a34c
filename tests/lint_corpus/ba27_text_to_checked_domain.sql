-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes); tablecmds.c ATColumnChangeRequiresRewrite returns true for a CoerceToDomain whose domain has constraints: the table is rewritten to check every value
-- verified: addresses and addresses_pkey relfilenodes changed (rewrite) under AccessExclusiveLock
-- given: CREATE DOMAIN us_zip AS text CHECK (VALUE ~ '^[0-9]{5}$');
-- given: CREATE TABLE addresses (id bigint PRIMARY KEY, zip text);
ALTER TABLE addresses ALTER COLUMN zip TYPE us_zip;
