-- expect: safe
-- doc: https://www.postgresql.org/docs/current/ddl-schemas.html#DDL-SCHEMAS-PATH (unqualified names resolve through search_path: the CREATE TABLE creates reporting.invoices, and the later unqualified names find it first); the index is built on the new, empty table
-- verified: PG15: reporting.invoices created and indexed; public.invoices relfilenode unchanged and no lock taken on it (checked in a transaction: only reporting.* relations locked)
-- given: CREATE TABLE invoices (id bigint PRIMARY KEY, customer_id bigint NOT NULL, total numeric(12,2), issued_on date NOT NULL);
CREATE SCHEMA IF NOT EXISTS reporting;
SET search_path TO reporting, public;
CREATE TABLE invoices (invoice_id bigint PRIMARY KEY, month date NOT NULL, total numeric(14,2));
CREATE INDEX invoices_month_idx ON invoices (month);
INSERT INTO invoices (invoice_id, month, total)
    SELECT id, date_trunc('month', issued_on)::date, total FROM public.invoices WHERE issued_on >= DATE '2026-01-01';
RESET search_path;
