-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-explain.html (without ANALYZE the statement is only planned, not executed)
-- verified: PG15: rows unchanged after EXPLAIN; no row locks taken
-- given: CREATE TABLE notifications (id bigint PRIMARY KEY, user_id bigint, read boolean);
-- given: INSERT INTO notifications VALUES (1, 1, true), (2, 2, false);
EXPLAIN (COSTS OFF, VERBOSE) UPDATE notifications SET read = true;
