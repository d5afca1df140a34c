-- expect: safe
-- doc: https://www.postgresql.org/docs/current/datatype-datetime.html (special input 'now' is converted to a constant when read); the DEFAULT 'now'::timestamptz is a constant, not a volatile call: stored in the catalog (ALTER TABLE Notes), no rewrite
-- verified: PG15: relfilenode of sessions unchanged, seq_scan unchanged
-- given: CREATE TABLE sessions (id bigint PRIMARY KEY, user_id bigint NOT NULL);
ALTER TABLE sessions ADD COLUMN migrated_at timestamptz NOT NULL DEFAULT 'now';
