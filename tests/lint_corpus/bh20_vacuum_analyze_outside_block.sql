-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-vacuum.html (plain VACUUM, without FULL: SHARE UPDATE EXCLUSIVE, "can operate in parallel with normal reading and writing"); run outside a block
-- verified: PG15: succeeded outside a transaction block; events relfilenode unchanged
-- given: CREATE TABLE events (id bigint PRIMARY KEY, kind text);
DELETE FROM events WHERE kind = 'debug';
VACUUM (ANALYZE, VERBOSE) events;
