-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-alterdomain.html (ADD ... NOT VALID skips the check of existing columns; VALIDATE CONSTRAINT in its own statement)
-- verified: PG15: both succeed as separate transactions; pg_constraint.convalidated = t afterwards
-- given: CREATE DOMAIN email_address AS text;
-- given: CREATE TABLE customers (id bigint PRIMARY KEY, email email_address);
ALTER DOMAIN email_address ADD CONSTRAINT email_has_at CHECK (VALUE LIKE '%@%') NOT VALID;
ALTER DOMAIN email_address VALIDATE CONSTRAINT email_has_at;
