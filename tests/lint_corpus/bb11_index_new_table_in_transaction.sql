-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-createindex.html; the table is created in the same transaction block (empty, invisible to others until COMMIT)
-- verified: PG15: the whole block succeeds; locks only on the new audit_log objects; users not rewritten
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
BEGIN;
CREATE TABLE audit_log (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, user_id bigint REFERENCES users (id), action text NOT NULL, at timestamptz NOT NULL DEFAULT now());
CREATE INDEX audit_log_user_id_idx ON audit_log (user_id);
CREATE UNIQUE INDEX audit_log_action_at_key ON audit_log (action, at);
COMMIT;
