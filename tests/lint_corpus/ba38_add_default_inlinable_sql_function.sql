-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes: a non-volatile DEFAULT is evaluated once and stored in the catalog); src/backend/catalog/heap.c StoreAttrDefault runs expression_planner() before contain_volatile_functions(): the LANGUAGE sql function (VOLATILE by default, https://www.postgresql.org/docs/15/sql-createfunction.html) is inlined to the constant 'free', so the fast default applies
-- verified: tenants relfilenode unchanged, no scan: fast default although default_plan() is VOLATILE (inlined to a constant)
-- given: CREATE TABLE tenants (id bigint PRIMARY KEY, name text NOT NULL);
CREATE FUNCTION default_plan() RETURNS text LANGUAGE sql AS $$ SELECT 'free'::text $$;
ALTER TABLE tenants ADD COLUMN plan text NOT NULL DEFAULT default_plan();
