-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-alterdomain.html (NOT VALID skips the initial check; VALIDATE CONSTRAINT afterwards); the rules' constraint text covers ALTER DOMAIN only without NOT VALID
-- verified: PG15+16: ADD ... NOT VALID did no scan; the separate VALIDATE scanned contacts (seq_scan +1) only
-- given: CREATE DOMAIN email_address AS text;
-- given: CREATE TABLE contacts (id bigint PRIMARY KEY, email email_address);
ALTER DOMAIN public.email_address ADD CONSTRAINT email_address_has_at CHECK (VALUE LIKE '%@%') NOT VALID;
ALTER DOMAIN public.email_address VALIDATE CONSTRAINT email_address_has_at;
