-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: a non-volatile DEFAULT is evaluated once at ALTER time and stored in the catalog); https://www.postgresql.org/docs/current/xfunc-volatility.html (IMMUTABLE functions)
-- verified: PG15: relfilenode of tenants unchanged, seq_scan unchanged
-- given: CREATE TABLE tenants (id bigint PRIMARY KEY, name text NOT NULL);
CREATE FUNCTION default_plan_code() RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 'free-2024' $$;
ALTER TABLE tenants ADD COLUMN plan_code text NOT NULL DEFAULT default_plan_code();
