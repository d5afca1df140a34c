-- expect: safe
-- doc: https://www.postgresql.org/docs/current/runtime-config-client.html (lock_timeout 3s below the 10s ceiling; statement_timeout 30min below 4h); ALTER TABLE SET (fillfactor) only changes reloptions
-- verified: PG15: SHOW lock_timeout = 3s, statement_timeout = 30min; accounts relfilenode unchanged
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, plan text);
SET lock_timeout = '3s';
SET statement_timeout TO '30min';
ALTER TABLE accounts SET (fillfactor = 80, autovacuum_vacuum_scale_factor = 0.02);
