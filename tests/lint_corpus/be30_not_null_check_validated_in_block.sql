-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (VALIDATE CONSTRAINT in the same transaction as the ADD ... NOT VALID: the scan runs while the ADD's ACCESS EXCLUSIVE lock is still held)
-- verified: PG15+16: inside the block pg_locks shows AccessExclusiveLock on leads during the VALIDATE scan (seq_scan +1)
-- given: CREATE TABLE leads (id bigint PRIMARY KEY, owner_id bigint);
BEGIN;
ALTER TABLE leads ADD CONSTRAINT leads_owner_id_not_null CHECK (owner_id IS NOT NULL) NOT VALID;
ALTER TABLE leads VALIDATE CONSTRAINT leads_owner_id_not_null;
ALTER TABLE leads ALTER COLUMN owner_id SET NOT NULL;
ALTER TABLE leads DROP CONSTRAINT leads_owner_id_not_null;
COMMIT;
