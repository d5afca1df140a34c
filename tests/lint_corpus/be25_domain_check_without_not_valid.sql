-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/current/sql-alterdomain.html (ADD domain_constraint: checked against every column of the domain's type unless NOT VALID)
-- verified: PG15+16: seq_scan +1 on both contacts and suppliers (every table with a column of the domain)
-- given: CREATE DOMAIN email_address AS text;
-- given: CREATE TABLE contacts (id bigint PRIMARY KEY, email email_address);
-- given: CREATE TABLE suppliers (id bigint PRIMARY KEY, billing_email email_address);
ALTER DOMAIN email_address ADD CONSTRAINT email_address_has_at CHECK (VALUE LIKE '%@%');
