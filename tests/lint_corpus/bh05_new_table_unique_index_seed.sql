-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-createindex.html ; index built on a table created in this same file (empty, unused)
-- verified: PG15: all statements succeed; only the new table and its index are touched
-- given: CREATE TABLE users (id bigint PRIMARY KEY, email text NOT NULL);
CREATE TABLE feature_flags (
    id bigserial PRIMARY KEY,
    key varchar(64) NOT NULL,
    enabled boolean NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX feature_flags_key_uniq ON feature_flags (lower(key));
INSERT INTO feature_flags (key, enabled) VALUES ('new_checkout', false), ('dark_mode', true);
