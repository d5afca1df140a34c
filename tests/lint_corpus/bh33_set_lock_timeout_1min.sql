-- expect: unsafe timeout-guard-off
-- doc: https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-LOCK-TIMEOUT ; rule ceiling max_lock_timeout default 10s, '1min' is above it
-- verified: PG15: SHOW lock_timeout = 1min
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, plan text);
SET SESSION lock_timeout = '1min';
ALTER TABLE accounts ALTER COLUMN plan SET DEFAULT 'free';
