-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: a rewrite is skipped only for binary-coercible changes or "an unconstrained domain over the new type"); here the OLD type is a constrained domain over varchar(10): the coercion to varchar(10) is built as a length-coercion call on the domain value, which tablecmds.c ATColumnChangeRequiresRewrite does not recognise as a no-op, so the table is rewritten
-- verified: PG15: relfilenode of members changed and members_pkey rebuilt (new relfilenode); DROP DOMAIN then succeeded
-- given: CREATE DOMAIN us_zip AS varchar(10) CHECK (VALUE ~ '^[0-9]{5}(-[0-9]{4})?$');
-- given: CREATE TABLE members (id bigint PRIMARY KEY, zip us_zip);
ALTER TABLE members ALTER COLUMN zip TYPE varchar(10);
DROP DOMAIN us_zip;
