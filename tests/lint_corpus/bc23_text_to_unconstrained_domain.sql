-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: "when the old type is either binary coercible to the new type or an unconstrained domain over the new type, a table rewrite is not needed"); tablecmds.c ATColumnChangeRequiresRewrite: a CoerceToDomain to a domain without constraints is stripped
-- verified: PG15: relfilenode of contacts unchanged and contacts_email_idx relfilenode unchanged, seq_scan unchanged
-- given: CREATE TABLE contacts (id bigint PRIMARY KEY, email text NOT NULL);
-- given: CREATE INDEX CONCURRENTLY contacts_email_idx ON contacts (email);
CREATE DOMAIN email_address AS text;
ALTER TABLE contacts ALTER COLUMN email TYPE email_address;
