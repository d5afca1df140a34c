-- expect: unsafe rename
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET SCHEMA: the table moves; queries by the old qualified/unqualified name fail)
-- verified: PG15: succeeded; afterwards SELECT FROM public.legacy_reports fails: relation does not exist
-- given: CREATE SCHEMA IF NOT EXISTS archive;
-- given: CREATE TABLE public.legacy_reports (id int PRIMARY KEY, body text);
ALTER TABLE IF EXISTS public.legacy_reports SET SCHEMA archive;
