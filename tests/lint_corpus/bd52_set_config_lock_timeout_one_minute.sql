-- expect: unsafe timeout-guard-off
-- doc: https://www.postgresql.org/docs/current/functions-admin.html (set_config(setting_name, new_value, is_local)); runtime-config-client.html (lock_timeout); a 1-minute lock wait is above the 10s ceiling of the rule
-- verified: PG15: set_config returns 1min; session lock_timeout is 1min for the rest of the step
-- given: CREATE TABLE devices (id bigserial PRIMARY KEY, serial text NOT NULL, firmware text);
SELECT set_config('lock_timeout', '1min', false);
ALTER TABLE devices ADD COLUMN last_seen_at timestamptz;
