-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes: "the old type is either binary coercible to the new type or an unconstrained domain over the new type"); a domain value is its base type on disk, coercing a domain to its base type is a RelabelType
-- verified: addresses relfilenode unchanged, no scan
-- given: CREATE DOMAIN us_zip AS text CHECK (VALUE ~ '^[0-9]{5}$');
-- given: CREATE TABLE addresses (id bigint PRIMARY KEY, zip us_zip);
ALTER TABLE addresses ALTER COLUMN zip TYPE text;
