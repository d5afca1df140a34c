-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD COLUMN IF NOT EXISTS, nullable, no default: catalog only; RENAME CONSTRAINT: catalog only, not a table/column rename)
-- verified: PG15+16: no relfilenode changed in either tenant schema, no seq scan
-- given: CREATE SCHEMA tenant_acme;
-- given: CREATE SCHEMA tenant_globex;
-- given: CREATE TABLE tenant_acme.documents (id bigint CONSTRAINT documents_pk PRIMARY KEY, title text);
-- given: CREATE TABLE tenant_globex.documents (id bigint CONSTRAINT documents_pk PRIMARY KEY, title text);
DO $$
DECLARE
  s name;
BEGIN
  FOR s IN SELECT nspname FROM pg_namespace WHERE nspname LIKE 'tenant\_%' LOOP
    EXECUTE format('ALTER TABLE %I.documents ADD COLUMN IF NOT EXISTS archived_at timestamptz', s);
    EXECUTE format('ALTER TABLE %I.documents RENAME CONSTRAINT documents_pk TO documents_pkey', s);
  END LOOP;
END
$$;
