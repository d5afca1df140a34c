-- expect: unsafe unbounded-data-change
-- doc: https://www.postgresql.org/docs/15/queries-with.html 7.8.4 (data-modifying statements in WITH run to completion); sql-delete.html
-- verified: PG15: succeeds; RowExclusiveLock on login_attempts and the archive; the DELETE has no WHERE, so every row is moved
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE login_attempts (id bigint PRIMARY KEY, user_id bigint, at timestamptz);
-- given: CREATE TABLE login_attempts_archive (id bigint PRIMARY KEY, user_id bigint, at timestamptz);
WITH moved AS (DELETE FROM login_attempts RETURNING *)
INSERT INTO login_attempts_archive SELECT * FROM moved;
