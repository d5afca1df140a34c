-- expect: unsafe add-column-not-null-without-default
-- doc: https://www.postgresql.org/docs/current/sql-createdomain.html (NOT NULL: "Values of this domain are prevented from being null"); ALTER TABLE ADD COLUMN without a default gives every existing row NULL, which the domain rejects: the statement scans and fails on any non-empty table
-- verified: PG15: ERROR "domain country_code does not allow null values" on a table with rows; succeeds only on an empty table
-- given: CREATE DOMAIN country_code AS char(2) NOT NULL CHECK (VALUE ~ '^[A-Z]{2}$');
-- given: CREATE TABLE addresses (id bigint PRIMARY KEY, line1 text NOT NULL, city text NOT NULL);
ALTER TABLE addresses ADD COLUMN country country_code;
