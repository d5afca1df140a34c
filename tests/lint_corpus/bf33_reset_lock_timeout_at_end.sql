-- expect: unsafe timeout-guard-off
-- doc: https://www.postgresql.org/docs/current/sql-reset.html (RESET restores the default, for lock_timeout usually 0 = wait forever); https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-LOCK-TIMEOUT
-- verified: PG15: after RESET lock_timeout, SHOW lock_timeout = 0 (server default); the other statements succeed and carriers relfilenode is unchanged
-- given: CREATE TABLE carriers (id int PRIMARY KEY, name text NOT NULL, scac char(4));
SET lock_timeout TO '4s';
ALTER TABLE carriers ADD COLUMN api_base_url text;
ALTER TABLE carriers ADD COLUMN supports_webhooks boolean DEFAULT false;
-- leave the session as we found it
RESET lock_timeout;
