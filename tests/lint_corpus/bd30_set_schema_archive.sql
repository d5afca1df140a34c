-- expect: unsafe rename
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET SCHEMA moves the table: queries using the old qualified name / search_path no longer find it)
-- verified: PG15: legacy_coupons moved to schema archive; SELECT from public.legacy_coupons then fails (relation does not exist)
-- given: CREATE TABLE public.legacy_coupons (code text PRIMARY KEY, discount numeric(5,2));
CREATE SCHEMA IF NOT EXISTS archive;
ALTER TABLE IF EXISTS public.legacy_coupons SET SCHEMA archive;
