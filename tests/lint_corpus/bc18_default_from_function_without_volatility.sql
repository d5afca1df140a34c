-- expect: unsafe add-column-volatile-default
-- doc: https://www.postgresql.org/docs/current/sql-createfunction.html ("If none of these appear, VOLATILE is the default assumption"); ALTER TABLE Notes: a volatile DEFAULT in ADD COLUMN rewrites the table
-- verified: PG15: relfilenode of tenants and tenants_pkey changed (rewrite) although the function returns a constant
-- given: CREATE TABLE tenants (id bigint PRIMARY KEY, name text NOT NULL);
CREATE OR REPLACE FUNCTION default_plan_code() RETURNS text LANGUAGE plpgsql AS $$ BEGIN RETURN 'free-2024'; END $$;
ALTER TABLE tenants ADD COLUMN plan_code text NOT NULL DEFAULT default_plan_code();
