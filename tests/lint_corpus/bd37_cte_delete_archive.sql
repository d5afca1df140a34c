-- expect: unsafe unbounded-data-change
-- doc: https://www.postgresql.org/docs/current/queries-with.html (7.8.4 Data-Modifying Statements in WITH: the DELETE runs to completion); https://www.postgresql.org/docs/current/sql-delete.html (no WHERE: all rows)
-- verified: PG15: with 1000 rows (500 read) the CTE deleted all 1000 from notifications (count 0 afterwards) though only 500 were archived
-- given: CREATE TABLE notifications (id bigserial PRIMARY KEY, user_id bigint NOT NULL, body text, read_at timestamptz);
-- given: CREATE TABLE notifications_archive (id bigint PRIMARY KEY, user_id bigint NOT NULL, body text, read_at timestamptz);
WITH moved AS (
    DELETE FROM notifications
    RETURNING id, user_id, body, read_at
)
INSERT INTO notifications_archive (id, user_id, body, read_at)
SELECT id, user_id, body, read_at FROM moved
WHERE read_at IS NOT NULL;
