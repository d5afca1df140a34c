-- expect: unsafe non-transactional-in-transaction
-- doc: https://www.postgresql.org/docs/current/sql-vacuum.html ("VACUUM cannot be executed inside a transaction block")
-- verified: PG15: ERROR: VACUUM cannot run inside a transaction block
-- given: CREATE TABLE events (id bigserial PRIMARY KEY, kind text, payload jsonb, created_at timestamptz);
BEGIN;
DELETE FROM events WHERE created_at < '2024-01-01';
VACUUM (ANALYZE) events;
COMMIT;
