-- expect: safe
-- doc: https://www.postgresql.org/docs/18/sql-altertable.html (PG 18: ADD table_constraint NOT NULL ... NOT VALID; "VALIDATE CONSTRAINT ... acquires only a SHARE UPDATE EXCLUSIVE lock")
-- verified: PG18: both statements succeed; after the first, pg_constraint has contype 'n' convalidated = false; after VALIDATE it is true and attnotnull = true; customers relfilenode unchanged; the NOT VALID form fails with a syntax error on PG15
-- pg-version: 18
-- given: CREATE TABLE customers (id bigint PRIMARY KEY, email text, phone text);
ALTER TABLE customers ADD CONSTRAINT customers_email_not_null NOT NULL email NOT VALID;
ALTER TABLE customers VALIDATE CONSTRAINT customers_email_not_null;
