-- expect: unsafe scan-under-lock
-- doc: https://www.postgresql.org/docs/current/sql-alterdomain.html (ADD ... NOT VALID skips the check of existing columns; VALIDATE CONSTRAINT checks them); relabelled unsafe from PostgreSQL's source: typecmds.c AlterDomainValidateConstraint -> validateDomainConstraint (12-16; validateDomainCheckConstraint from 17) takes ShareLock on every table with a column of the domain (get_rels_with_domain) and holds it to commit while it scans: SHARE conflicts with ROW EXCLUSIVE (13.3 Explicit Locking), so writes to customers wait for the whole scan
-- verified: PG15: both succeed as separate transactions; pg_constraint.convalidated = t afterwards; relabel: pg_locks during VALIDATE CONSTRAINT shows ShareLock on the table until commit and an INSERT from a second session waits (PostgreSQL 15 and 18)
-- given: CREATE DOMAIN email_address AS text;
-- given: CREATE TABLE customers (id bigint PRIMARY KEY, email email_address);
ALTER DOMAIN email_address ADD CONSTRAINT email_has_at CHECK (VALUE LIKE '%@%') NOT VALID;
ALTER DOMAIN email_address VALIDATE CONSTRAINT email_has_at;
