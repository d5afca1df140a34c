-- expect: unsafe add-column-volatile-default
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes: "Adding a column with a volatile DEFAULT ... will require the entire table and its indexes to be rewritten"); https://www.postgresql.org/docs/15/sql-createfunction.html ("If none of these appear, VOLATILE is the default assumption"); a PL/pgSQL function is never inlined, so the default stays volatile
-- verified: tenants and tenants_pkey relfilenodes changed (rewrite, 2 seq scans) under AccessExclusiveLock
-- given: CREATE TABLE tenants (id bigint PRIMARY KEY, name text NOT NULL);
CREATE FUNCTION default_plan() RETURNS text LANGUAGE plpgsql AS $$ BEGIN RETURN 'free'; END $$;
ALTER TABLE tenants ADD COLUMN plan text NOT NULL DEFAULT default_plan();
