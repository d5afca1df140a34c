-- expect: unsafe timeout-guard-off
-- doc: https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-LOCK-TIMEOUT ("A value of zero (the default) turns this off")
-- verified: PG15: SHOW lock_timeout inside the block returned 0
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, note text);
BEGIN;
SET LOCAL lock_timeout TO 0;
ALTER TABLE orders ALTER COLUMN note SET STATISTICS 500;
COMMIT;
