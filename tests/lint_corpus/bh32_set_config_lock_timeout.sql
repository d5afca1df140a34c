-- expect: unsafe timeout-guard-off
-- doc: https://www.postgresql.org/docs/current/functions-admin.html#FUNCTIONS-ADMIN-SET (set_config(setting_name, new_value, is_local)); lock_timeout 0 = no limit
-- verified: PG15: SELECT returned '0'; SHOW lock_timeout = 0 for the session
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, plan text);
SELECT pg_catalog.set_config('lock_timeout', '0', false);
ALTER TABLE accounts ALTER COLUMN plan SET DEFAULT 'free';
