-- expect: unsafe timeout-guard-off
-- doc: https://www.postgresql.org/docs/current/functions-admin.html#FUNCTIONS-ADMIN-SET (set_config(name, value, is_local)); https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-LOCK-TIMEOUT (0 disables the timeout)
-- verified: PG15: the DO block succeeds; the same set_config call followed by RAISE NOTICE current_setting('lock_timeout') prints 0 inside the block, so the bounded UPDATEs run without a lock timeout; devices relfilenode unchanged
-- given: CREATE TABLE devices (id bigint PRIMARY KEY, firmware text, last_seen timestamptz);
DO $$
DECLARE
    batch_start bigint := 0;
    max_id bigint;
BEGIN
    PERFORM set_config('lock_timeout', '0', true);
    SELECT coalesce(max(id), 0) INTO max_id FROM devices;
    WHILE batch_start <= max_id LOOP
        UPDATE devices SET firmware = 'unknown'
         WHERE id >= batch_start AND id < batch_start + 5000 AND firmware IS NULL;
        batch_start := batch_start + 5000;
    END LOOP;
END
$$;
