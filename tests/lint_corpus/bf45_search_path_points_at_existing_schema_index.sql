-- expect: unsafe require-concurrent-index
-- doc: https://www.postgresql.org/docs/current/sql-createindex.html (without CONCURRENTLY: SHARE lock, writes blocked for the build); https://www.postgresql.org/docs/current/ddl-schemas.html#DDL-SCHEMAS-PATH (the unqualified name resolves to billing.invoices)
-- verified: PG15: the index is created on billing.invoices; inside a transaction the CREATE INDEX holds ShareLock on billing.invoices
-- given: CREATE SCHEMA billing;
-- given: CREATE TABLE billing.invoices (id bigint PRIMARY KEY, customer_id bigint NOT NULL, due_on date, paid boolean NOT NULL DEFAULT false);
SET search_path TO billing;
CREATE INDEX invoices_unpaid_due_idx ON invoices (due_on) WHERE NOT paid;
