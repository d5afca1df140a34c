-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-update.html ; bounded by a WHERE on the key range
-- verified: PG15: only rows in the id range updated
-- given: CREATE TABLE users (id bigint PRIMARY KEY, email text, email_normalized text);
UPDATE users SET email_normalized = lower(email) WHERE id BETWEEN 1 AND 10000 AND email_normalized IS NULL;
