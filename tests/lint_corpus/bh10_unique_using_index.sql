-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD table_constraint_using_index: the index is attached, not rebuilt)
-- verified: PG15: index relfilenode identical before and after ADD CONSTRAINT ... USING INDEX; constraint renamed the index to accounts_email_key
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email text NOT NULL);
CREATE UNIQUE INDEX CONCURRENTLY accounts_email_key_idx ON accounts (email);
ALTER TABLE accounts ADD CONSTRAINT accounts_email_key UNIQUE USING INDEX accounts_email_key_idx;
