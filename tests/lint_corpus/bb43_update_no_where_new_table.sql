-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-update.html; the table is created and filled earlier in this file (not live yet)
-- verified: PG15: succeeds; the UPDATE touches only user_stats created in the file
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE user_stats (user_id bigint PRIMARY KEY, logins int NOT NULL DEFAULT 0, score int);
INSERT INTO user_stats (user_id) SELECT id FROM users WHERE id < 1000;
UPDATE user_stats SET score = logins * 10;
