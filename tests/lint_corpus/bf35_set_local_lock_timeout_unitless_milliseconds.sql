-- expect: unsafe timeout-guard-off
-- doc: https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-LOCK-TIMEOUT ("If this value is specified without units, it is taken as milliseconds"): 15000 = 15s, above the rule's 10s ceiling
-- verified: PG15: inside the block SHOW lock_timeout = 15s; block commits; no relfilenode changed
-- given: CREATE TABLE subscriptions (id bigint PRIMARY KEY, plan text NOT NULL, renews_at date);
BEGIN;
SET LOCAL lock_timeout = 15000;
ALTER TABLE subscriptions ALTER COLUMN plan SET DEFAULT 'free';
ALTER TABLE subscriptions ADD COLUMN cancelled_at timestamptz;
COMMIT;
