-- expect: unsafe scan-under-lock
-- doc: https://www.postgresql.org/docs/current/sql-alterdomain.html (NOT VALID skips the initial check; VALIDATE CONSTRAINT checks the existing values afterwards); relabelled unsafe from PostgreSQL's source: typecmds.c AlterDomainValidateConstraint -> validateDomainConstraint (12-16; validateDomainCheckConstraint from 17) opens every table with a column of the domain through get_rels_with_domain(domainoid, ShareLock) and keeps the lock to commit ("Hold relation lock till commit"): SHARE conflicts with ROW EXCLUSIVE (13.3 Explicit Locking), so writes to contacts wait for the whole scan, unlike ALTER TABLE ... VALIDATE CONSTRAINT (SHARE UPDATE EXCLUSIVE)
-- verified: PG15+16: ADD ... NOT VALID did no scan; the separate VALIDATE scanned contacts (seq_scan +1) only; relabel: pg_locks during VALIDATE CONSTRAINT shows ShareLock on the table until commit and an INSERT from a second session waits (PostgreSQL 15 and 18)
-- given: CREATE DOMAIN email_address AS text;
-- given: CREATE TABLE contacts (id bigint PRIMARY KEY, email email_address);
ALTER DOMAIN public.email_address ADD CONSTRAINT email_address_has_at CHECK (VALUE LIKE '%@%') NOT VALID;
ALTER DOMAIN public.email_address VALIDATE CONSTRAINT email_address_has_at;
