-- expect: unsafe column-type-change
-- doc: tablecmds.c ATColumnChangeRequiresRewrite ("if (IsA(expr, CoerceToDomain)) ... if (GetDomainConstraints(d->resulttype) != NIL) return true"): a domain with constraints needs every row checked, done as a rewrite; ALTER TABLE Notes (only an unconstrained domain skips the rewrite)
-- verified: PG15: relfilenode of contacts changed, contacts_email_idx rebuilt (new relfilenode)
-- given: CREATE TABLE contacts (id bigint PRIMARY KEY, email text NOT NULL);
-- given: CREATE INDEX CONCURRENTLY contacts_email_idx ON contacts (email);
CREATE DOMAIN email_address AS text CHECK (VALUE LIKE '%_@_%');
ALTER TABLE contacts ALTER COLUMN email TYPE email_address;
