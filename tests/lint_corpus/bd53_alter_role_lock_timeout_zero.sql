-- expect: unsafe timeout-guard-off
-- doc: https://www.postgresql.org/docs/current/sql-alterrole.html (ALTER ROLE ... SET changes the role's session default for every later session); runtime-config-client.html (lock_timeout 0 = off)
-- verified: PG15: pg_db_role_setting for the role holds {statement_timeout=5min,lock_timeout=0}
-- given: CREATE ROLE d53_reporting NOLOGIN;
-- given: CREATE TABLE report_runs (id bigserial PRIMARY KEY, started_at timestamptz);
ALTER ROLE d53_reporting SET statement_timeout = '5min';
ALTER ROLE d53_reporting SET lock_timeout TO 0;
GRANT SELECT ON report_runs TO d53_reporting;
