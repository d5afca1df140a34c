-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-createview.html; sql-comment.html; sql-grant.html (catalog-only changes, no table lock beyond brief)
-- verified: PG15: succeeds; only AccessShareLock/ShareUpdateExclusiveLock (COMMENT) on users, nothing rewritten
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL, total numeric(12,2), state text, placed_at timestamptz);
-- given: CREATE ROLE reporting NOLOGIN;
CREATE OR REPLACE VIEW active_users AS SELECT id, email, created_at FROM users WHERE deleted_at IS NULL;
COMMENT ON VIEW active_users IS 'users not soft-deleted';
COMMENT ON COLUMN users.status IS 'active | inactive | banned';
GRANT SELECT ON active_users TO reporting;
REVOKE ALL ON orders FROM PUBLIC;
