-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-alterrole.html (ALTER ROLE ... SET configuration_parameter: per-role session default); 2s lock_timeout and 30s statement_timeout are below the rule's ceilings (10s / 4h) and not 0
-- verified: PG15: both succeed; pg_db_role_setting for app_rw shows {lock_timeout=2s,statement_timeout=30s}
-- given: CREATE ROLE app_rw LOGIN;
-- Defaults for the application role agreed with the DBA team.
ALTER ROLE app_rw SET lock_timeout = '2s';
ALTER ROLE app_rw SET statement_timeout = '30s';
