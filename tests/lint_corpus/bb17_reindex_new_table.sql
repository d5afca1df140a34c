-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-reindex.html; the table is created earlier in this file (empty)
-- verified: PG15: succeeds; locks only on sessions and its indexes (created in the file)
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE sessions (id uuid PRIMARY KEY, user_id bigint NOT NULL);
CREATE INDEX sessions_user_id_idx ON sessions (user_id);
REINDEX TABLE sessions;
