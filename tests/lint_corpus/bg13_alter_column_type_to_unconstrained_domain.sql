-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: "when the old type is either binary coercible to the new type or an unconstrained domain over the new type, a table rewrite is not needed"); here text to a domain over text without constraints (no domain check either)
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan unchanged on every table (no scan); locks held (whole file in one test transaction): subscribers AccessExclusiveLock
-- given: CREATE DOMAIN email_address AS text;
-- given: CREATE TABLE subscribers (id bigint PRIMARY KEY, email text NOT NULL);
ALTER TABLE subscribers ALTER COLUMN email TYPE email_address;
