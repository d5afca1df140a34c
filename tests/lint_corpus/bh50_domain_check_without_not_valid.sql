-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/current/sql-alterdomain.html (ADD CONSTRAINT checks every column of the domain type unless NOT VALID)
-- verified: PG15: inside BEGIN, ShareLock on customers (the table using the domain) while checking
-- given: CREATE DOMAIN email_address AS text;
-- given: CREATE TABLE customers (id bigint PRIMARY KEY, email email_address);
ALTER DOMAIN email_address ADD CONSTRAINT email_has_at CHECK (VALUE LIKE '%@%');
