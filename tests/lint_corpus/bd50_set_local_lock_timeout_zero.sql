-- expect: unsafe timeout-guard-off
-- doc: https://www.postgresql.org/docs/current/runtime-config-client.html (lock_timeout: "A value of zero (the default) turns this off")
-- verified: PG15: accepted; lock_timeout shows 0 (no limit) for the rest of the block
-- given: CREATE TABLE inventory (id bigserial PRIMARY KEY, sku text NOT NULL, qty int NOT NULL DEFAULT 0);
BEGIN;
-- the deploy kept failing on lock timeouts; wait as long as needed
SET LOCAL lock_timeout = 0;
ALTER TABLE inventory ADD COLUMN reserved int;
COMMIT;
