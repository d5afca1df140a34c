-- expect: unsafe unbounded-data-change
-- doc: https://www.postgresql.org/docs/current/queries-with.html#QUERIES-WITH-MODIFYING (data-modifying statements in WITH); https://www.postgresql.org/docs/current/sql-delete.html (no WHERE: every row deleted, each row locked until commit)
-- verified: PG15: all 3 test rows moved from job_queue to job_archive in one statement; job_queue is empty afterwards
-- given: CREATE TABLE job_queue (id bigint PRIMARY KEY, kind text NOT NULL, payload jsonb, enqueued_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS job_archive (LIKE job_queue INCLUDING ALL);
WITH moved AS (
    DELETE FROM job_queue
    RETURNING *
)
INSERT INTO job_archive SELECT * FROM moved;
