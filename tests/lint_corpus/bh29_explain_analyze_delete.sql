-- expect: unsafe unbounded-data-change
-- doc: https://www.postgresql.org/docs/current/sql-explain.html ("ANALYZE ... the statement is actually executed")
-- verified: PG15: after EXPLAIN ANALYZE, SELECT count(*) FROM notifications = 0
-- given: CREATE TABLE notifications (id bigint PRIMARY KEY, user_id bigint, read boolean);
-- given: INSERT INTO notifications VALUES (1, 1, true), (2, 2, false);
EXPLAIN (ANALYZE, BUFFERS) DELETE FROM notifications;
