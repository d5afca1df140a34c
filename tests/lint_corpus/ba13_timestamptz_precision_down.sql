-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes); timestamp_support only simplifies a coercion to a larger (or no) precision; timestamptz -> timestamptz(0) rounds every value: rewrite
-- verified: sessions and sessions_pkey relfilenodes changed (rewrite)
-- given: CREATE TABLE sessions (id bigint PRIMARY KEY, seen_at timestamp(3), expires_at timestamptz);
ALTER TABLE sessions ALTER COLUMN expires_at TYPE timestamptz(0);
